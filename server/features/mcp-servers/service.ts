/**
 * Registered MCP servers (contracts/mcp.ts): an admin registers a stdio command or a streamable-HTTP
 * URL; the Test action starts it through the SDK client (lib/mcp/session.ts), lists its tools and
 * records them with its health. Secret environment values and header values are encrypted at rest
 * (lib/mcp/store.ts) and never leave the server: the list shows their names only. What the server said
 * when it failed (its stderr, its error text) is stored redacted of those secrets (lib/mcp/redact.ts,
 * applied in the session) and shown to admins only; others read that the last test failed.
 */
import type { Prisma } from "@prisma/client";
import { parseMcpDatasetRef, type McpLaunch, type McpServerSettings } from "../../../contracts/mcp";
import { prisma } from "../../../lib/db";
import { openMcpSession } from "../../../lib/mcp/session";
import { launchColumns, launchSpecOf, publicLaunchOf, storedLaunchOf, storedSettingsOf, storedToolsOf } from "../../../lib/mcp/store";
import { DomainError, notFound } from "../../lib/errors";
import { mcpServerWhere } from "./ref";

/** What a read selects; `publicView` turns the launch columns into the public launch (schemas.ts mirrors it). */
export const mcpServerSelect = {
  id: true,
  name: true,
  description: true,
  settings: true,
  tools: true,
  serverInfo: true,
  health: true,
  healthDetail: true,
  checkedAt: true,
  createdAt: true,
  ...launchColumns,
} satisfies Prisma.McpServerSelect;

type Row = Prisma.McpServerGetPayload<{ select: typeof mcpServerSelect }>;

/** Who is reading: an admin sees the last test's diagnostics, everyone else that it failed. */
export interface McpReader {
  role: string;
}

/** What non-admins read in place of the diagnostics of a failed test. */
export const HEALTH_DETAIL_FOR_ADMINS = "the last test failed; what the server said is shown to admins";

/** What a browser may see of a server: never a secret value; the diagnostics only for admins. */
function publicView(row: Row, reader: McpReader) {
  let settings: McpServerSettings | null = null;
  try {
    settings = storedSettingsOf(row.name, row.settings);
  } catch {
    settings = null;
  }
  const info = row.serverInfo as { name?: unknown; version?: unknown } | null;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    launch: publicLaunchOf(row),
    settings,
    tools: storedToolsOf(row.tools),
    serverInfo: info && typeof info.name === "string" ? { name: info.name, version: typeof info.version === "string" ? info.version : "" } : null,
    health: row.health,
    healthDetail: row.healthDetail === null ? null : reader.role === "admin" ? row.healthDetail : HEALTH_DETAIL_FOR_ADMINS,
    checkedAt: row.checkedAt,
    createdAt: row.createdAt,
  };
}
export type McpServerView = ReturnType<typeof publicView>;

export async function listMcpServers(reader: McpReader) {
  const rows = await prisma.mcpServer.findMany({ orderBy: { name: "asc" }, select: mcpServerSelect });
  return rows.map((row) => publicView(row, reader));
}

/** One server by id or name (see ref.ts). */
export async function getMcpServer(ref: string, reader: McpReader) {
  const row = await prisma.mcpServer.findFirst({ where: mcpServerWhere(ref), select: mcpServerSelect });
  if (!row) throw notFound("MCP server", ref);
  return publicView(row, reader);
}

/** Test, register and update are admins' (adminProcedure): their answers carry the diagnostics. */
const ADMIN: McpReader = { role: "admin" };

/** Start the server, list its tools, and record them with its health (what a run's discovery does too). */
export async function testMcpServer(ref: string) {
  const row = await prisma.mcpServer.findFirst({ where: mcpServerWhere(ref), select: { id: true, name: true, settings: true, ...launchColumns } });
  if (!row) throw notFound("MCP server", ref);
  const id = row.id;
  const settings = storedSettingsOf(row.name, row.settings);
  const started = performance.now();
  let outcome: { ok: true; tools: number } | { ok: false; error: string };
  try {
    const session = await openMcpSession(launchSpecOf(row.name, row), { limits: settings.limits, label: row.name, listTools: true });
    await session.close();
    const missing = settings.tools.filter((n) => !session.tools.some((t) => t.name === n));
    await prisma.mcpServer.update({
      where: { id },
      data: {
        tools: session.tools as unknown as Prisma.InputJsonValue,
        serverInfo: (session.serverInfo ?? undefined) as Prisma.InputJsonValue | undefined,
        health: missing.length ? "unhealthy" : "healthy",
        healthDetail: missing.length ? `the selected tool(s) ${missing.join(", ")} are not offered by the server` : null,
        checkedAt: new Date(),
      },
    });
    outcome = missing.length ? { ok: false, error: `the selected tool(s) ${missing.join(", ")} are not offered by the server` } : { ok: true, tools: session.tools.length };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    await prisma.mcpServer.update({ where: { id }, data: { health: "unhealthy", healthDetail: error.slice(0, 2000), checkedAt: new Date() } });
    outcome = { ok: false, error };
  }
  return { ...outcome, ms: Math.round(performance.now() - started), server: await getMcpServer(id, ADMIN) };
}

export interface RegisterMcpServerInput {
  name: string;
  description: string;
  launch: McpLaunch;
  settings: McpServerSettings;
}

/** Store the server (secrets encrypted), then test it; a server that fails its test stays registered, marked unhealthy. */
export async function registerMcpServer(input: RegisterMcpServerInput, userId: string) {
  const exists = await prisma.mcpServer.findUnique({ where: { name: input.name }, select: { id: true } });
  if (exists) throw new DomainError("CONFLICT", `an MCP server named ${input.name} already exists`, [{ path: "name", message: "already taken" }]);
  const created = await prisma.mcpServer.create({
    data: { name: input.name, description: input.description, ...storedLaunchOf(input.launch), settings: input.settings as unknown as Prisma.InputJsonValue, createdById: userId },
    select: { id: true },
  });
  return testMcpServer(created.id);
}

/** Change the description, limits or tool selection (the launch itself is replaced by registering again). */
export async function updateMcpServer(ref: string, input: { description?: string; settings?: McpServerSettings }) {
  const row = await prisma.mcpServer.findFirst({ where: mcpServerWhere(ref), select: { id: true } });
  if (!row) throw notFound("MCP server", ref);
  const id = row.id;
  await prisma.mcpServer.update({
    where: { id },
    data: {
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.settings ? { settings: input.settings as unknown as Prisma.InputJsonValue } : {}),
    },
  });
  return getMcpServer(id, ADMIN);
}

/** Delete a server, unless a queued or running run uses it. */
export async function removeMcpServer(ref: string) {
  const row = await prisma.mcpServer.findFirst({ where: mcpServerWhere(ref), select: { id: true, name: true } });
  if (!row) throw notFound("MCP server", ref);
  const id = row.id;
  const active = await prisma.run.findMany({ where: { status: { in: ["queued", "running"] } }, orderBy: { createdAt: "asc" }, select: { id: true, name: true, status: true, config: true } });
  const users = active.filter((run) => {
    const dataset = (run.config as { data?: { dataset?: unknown } } | null)?.data?.dataset;
    return typeof dataset === "string" && parseMcpDatasetRef(dataset)?.server === row.name;
  });
  if (users.length) {
    throw new DomainError(
      "CONFLICT",
      `MCP server ${row.name} is used by ${users.length} queued or running run${users.length === 1 ? "" : "s"}: ${users
        .slice(0, 5)
        .map((r) => `"${r.name}" (${r.status})`)
        .join(", ")}; cancel ${users.length === 1 ? "it" : "them"} or wait until ${users.length === 1 ? "it finishes" : "they finish"}`,
      users.map((r) => ({ path: `runs.${r.id}`, message: r.name })),
    );
  }
  await prisma.mcpServer.delete({ where: { id } });
  return { id };
}
