/**
 * "Download adapter": a checkpoint's LoRA adapter archive, streamed from the Tinker-compatible node that
 * holds it (hosted Tinker, SkyRL tx; the archive route as the SDK asks it, lib/clients/tinker-archive.ts)
 * through the web server, so the browser needs neither the node's address nor its key. Answers JSON errors
 * in the REST shape: 401 without a caller, 404 unknown checkpoint, 403 when the caller may not read the run
 * or when the server may not contact the node for them (it probes only nodes an admin added or the system
 * registered, as the node doctor does), 409 for a node that has no adapters (the embedded node keeps full
 * weights), 410 for a deleted checkpoint, 502 when the node does not hand the archive over.
 */
import { prisma } from "../../../lib/db";
import { decryptSecret } from "../../../lib/secrets";
import { mayReadRun, mayTestNode, NODE_TEST_RULE, RUN_READ_RULE } from "../../../lib/permissions";
import { parseNodeSettings } from "../../../contracts/node-settings";
import { TinkerClient } from "../../../lib/clients/tinker-client";
import { checkpointArchiveLocation } from "../../../lib/clients/tinker-archive";
import { resolveUser } from "../../trpc/context";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const problem = (status: number, code: string, message: string) =>
  new Response(JSON.stringify({ code, message, fieldErrors: [] }), { status, headers: { "content-type": "application/json" } });

export async function downloadAdapter(req: Request, checkpointId: string): Promise<Response> {
  const user = await resolveUser(req.headers);
  if (!user) return problem(401, "UNAUTHORIZED", "sign in or send an API token");
  if (!UUID.test(checkpointId)) return problem(400, "BAD_REQUEST", "checkpoint id must be a UUID");
  const c = await prisma.checkpoint.findUnique({
    where: { id: checkpointId },
    select: { step: true, nodeName: true, samplerPath: true, deletedAt: true, deletedReason: true, run: { select: { name: true, createdById: true, config: true } } },
  });
  if (!c) return problem(404, "NOT_FOUND", `checkpoint ${checkpointId} not found`);
  if (!mayReadRun(c.run, user)) return problem(403, "FORBIDDEN", `you may not read run "${c.run.name}" (${RUN_READ_RULE})`);
  if (c.deletedAt) return problem(410, "GONE", `the checkpoint of run "${c.run.name}" at step ${c.step} was deleted${c.deletedReason ? ` (${c.deletedReason})` : ""}`);
  const node = await prisma.node.findUnique({
    where: { name: c.nodeName },
    select: { name: true, kind: true, baseUrl: true, apiKeyEnc: true, settings: true, createdById: true, createdBy: { select: { role: true } } },
  });
  if (!node) return problem(409, "CONFLICT", `node "${c.nodeName}", which holds the checkpoint, is no longer registered`);
  if (node.kind !== "tinker") return problem(409, "CONFLICT", `node "${node.name}" keeps full weights of its own model, not LoRA adapters: there is no adapter to download`);
  // Viewers download too; the URL the server contacts must be one an admin vouched for, as for the doctor.
  if (!mayTestNode(node, user.role === "admin" ? user : { id: user.id, role: "member" })) return problem(403, "FORBIDDEN", `the server does not contact node "${node.name}" for you: ${NODE_TEST_RULE}`);

  const settings = parseNodeSettings(node.name, node.settings);
  const client = new TinkerClient({ baseUrl: node.baseUrl, apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : undefined, nodeName: node.name, profile: settings.tinker.server, log: () => {} });
  let upstream: Response;
  try {
    await client.start(["envace-download"]);
    const where = await checkpointArchiveLocation(client, c.samplerPath, { signal: req.signal });
    upstream = await fetch(where.url, { headers: where.headers, signal: req.signal });
  } catch (e) {
    return problem(502, "BAD_GATEWAY", `node "${node.name}" did not hand the archive over: ${(e as Error).message}`);
  } finally {
    client.close();
  }
  if (!upstream.ok || !upstream.body) return problem(502, "BAD_GATEWAY", `downloading the archive from node "${node.name}": HTTP ${upstream.status}`);
  const gz = /gzip/.test(upstream.headers.get("content-type") ?? "") || /\.gz"?$/.test(upstream.headers.get("content-disposition") ?? "");
  const base = c.run.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "run";
  const headers: Record<string, string> = {
    "content-type": upstream.headers.get("content-type") ?? "application/octet-stream",
    "content-disposition": `attachment; filename="${base}-step${c.step}-adapter.tar${gz ? ".gz" : ""}"`,
    "cache-control": "no-store",
  };
  const length = upstream.headers.get("content-length");
  if (length) headers["content-length"] = length;
  return new Response(upstream.body, { status: 200, headers });
}
