import type { UserRole } from "../../auth";
import { prisma } from "../../../lib/db";
import { DomainError, notFound } from "../../lib/errors";

const userSelect = { id: true, name: true, email: true, role: true, createdAt: true } as const;

export function listUsers() {
  return prisma.user.findMany({ orderBy: { createdAt: "asc" }, select: userSelect });
}

/** Change a role; the last admin cannot be demoted, so the install stays administrable. */
export async function setRole(userId: string, role: UserRole) {
  return prisma.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, role: true } });
    if (!user) throw notFound("user", userId);
    if (user.role === "admin" && role !== "admin") {
      const admins = await tx.user.count({ where: { role: "admin" } });
      if (admins <= 1) throw new DomainError("CONFLICT", "cannot demote the last admin");
    }
    return tx.user.update({ where: { id: userId }, data: { role }, select: userSelect });
  });
}
