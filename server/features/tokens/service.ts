/** Personal API tokens: 256-bit random, shown once, stored as SHA-256, revocable. */
import { prisma } from "../../../lib/db";
import { DomainError, notFound } from "../../lib/errors";
import { randomToken, sha256 } from "../../../lib/secrets";

const tokenSelect = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

export async function createToken(userId: string, name: string) {
  const token = randomToken("envace_");
  const row = await prisma.apiToken.create({
    data: { userId, name, prefix: token.slice(0, 14), tokenHash: sha256(token) },
    select: tokenSelect,
  });
  return { ...row, token };
}

export function listTokens(userId: string) {
  return prisma.apiToken.findMany({ where: { userId }, orderBy: { createdAt: "desc" }, select: tokenSelect });
}

export async function revokeToken(userId: string, id: string) {
  const row = await prisma.apiToken.findFirst({ where: { id, userId }, select: { id: true, revokedAt: true } });
  if (!row) throw notFound("API token", id);
  if (row.revokedAt) throw new DomainError("CONFLICT", `API token ${id} is already revoked`);
  return prisma.apiToken.update({ where: { id }, data: { revokedAt: new Date() }, select: tokenSelect });
}
