/**
 * The REST API over real HTTP against real Postgres: each endpoint of the OpenAPI document, Bearer
 * tokens (401 unknown/revoked, 403 viewer on a write), 400 with field paths, and the document itself
 * validated by a maintained OpenAPI validator.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSettings } from "../contracts/run-settings";
import { startApiServer, type ApiServer } from "../test/api-server";
import { callerFor, prisma, resetDatabase, signUp } from "../test/helpers";
import { cm2Jsonl, cm2Row } from "../test/fixtures/cm2";
import { memoryServerPath, waitForNoProcessesUnder } from "../test/mcp";
import { seedRunRows } from "../test/fixtures/run-rows";
import { registerCheckedNode } from "../test/fixtures/doctor-report";
import { seedRun } from "../test/seed";
import { createToken } from "./features/tokens/service";
import { restEndpoints } from "./openapi";
import { appRouter } from "./root";

let server: ApiServer;
let memberToken: string;
let viewerToken: string;
let memberId: string;
let memberHeaders: Headers;
let adminToken: string;
let mcpRoot: string;

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function api(method: string, path: string, token: string | null, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const quick = { kind: "train", data: { instancesPerStep: 2 }, schedule: { steps: 3 } };

beforeAll(async () => {
  mcpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "envace-rest-mcp-"));
  process.env.ENVACE_MCP_SCRATCH_DIR = mcpRoot;
  await resetDatabase();
  server = await startApiServer();
  const member = await signUp("member");
  const viewer = await signUp("viewer");
  memberId = member.id;
  memberHeaders = member.headers;
  memberToken = (await (await callerFor(member.headers)).tokens.create({ name: "ci" })).token;
  viewerToken = (await (await callerFor(viewer.headers)).tokens.create({ name: "ci" })).token;
  const admin = await signUp("admin");
  adminToken = (await (await callerFor(admin.headers)).tokens.create({ name: "ci" })).token;
  // The embedded node as its doctor reports it: the launch check reads its 1,024-token context.
  await registerCheckedNode(prisma, "embedded", ["tiny-gpt"], { facts: { contextLength: 1024, renderer: "tiny-gpt", profile: "envace-embedded" } });
});

afterAll(async () => {
  await server?.close();
  expect(await waitForNoProcessesUnder(mcpRoot)).toEqual([]);
  delete process.env.ENVACE_MCP_SCRATCH_DIR;
  fs.rmSync(mcpRoot, { recursive: true, force: true });
});

describe("the OpenAPI document", () => {
  let doc: OpenAPIV3_1.Document;

  beforeAll(async () => {
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenAPIV3_1.Document;
  });

  it("validates against the OpenAPI 3.1 specification", async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers?.[0]?.url).toBe(`${server.url}/api/v1`);
  });

  it("lists every endpoint, each behind the bearer token, writes with a 403 answer", () => {
    for (const [procedure, endpoint] of Object.entries(restEndpoints)) {
      const [method, path] = endpoint.split(" ") as [string, string];
      const op = doc.paths?.[path]?.[method.toLowerCase() as "get"];
      expect(op, `${procedure}: ${endpoint}`).toBeDefined();
      expect(op!.operationId).toBe(procedure.replace(/\./g, "-"));
      expect(op!.security).toEqual([{ bearerToken: [] }]);
      expect(Object.keys(op!.responses ?? {})).toEqual(expect.arrayContaining(["200", "400", "401"]));
      if (method !== "GET") expect(Object.keys(op!.responses ?? {})).toContain("403");
    }
    // nodes.doctor lands in another change: once the router has it, it must be a REST endpoint too.
    if ("nodes.doctor" in appRouter._def.procedures) expect(Object.keys(restEndpoints)).toContain("nodes.doctor");
    const documented = Object.entries(doc.paths ?? {}).flatMap(([p, item]) => Object.keys(item ?? {}).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(Object.values(restEndpoints).sort());
  });

  it("describes the run config with every setting's label, help and default", () => {
    const input = doc.components?.schemas?.RunConfigInput as OpenAPIV3_1.SchemaObject;
    for (const s of runSettings()) {
      let node: OpenAPIV3_1.SchemaObject | undefined = input;
      for (const key of s.path) {
        // Optional nested objects (rollout.simulator) render as anyOf [object, …]; a union leaf (policy.checkpoint.step: a number or "latest") stays as it is.
        const container = node?.properties ? node : (node?.anyOf?.find((b) => (b as OpenAPIV3_1.SchemaObject).properties) as OpenAPIV3_1.SchemaObject | undefined);
        node = container?.properties?.[key] as OpenAPIV3_1.SchemaObject | undefined;
      }
      expect(node, s.key).toBeDefined();
      expect(node!.title, s.key).toBe(s.label);
      expect(node!.description, s.key).toBeTruthy();
    }
    const lr = (input.properties!.optim as OpenAPIV3_1.SchemaObject).properties!.lr as OpenAPIV3_1.SchemaObject;
    expect(lr.default).toBe(1e-6);
    // A launch refuses unknown settings: the input says so at every level.
    expect(input.additionalProperties).toBe(false);
    expect((input.properties!.schedule as OpenAPIV3_1.SchemaObject).additionalProperties).toBe(false);
    const create = doc.paths!["/runs"]!.post!.requestBody as OpenAPIV3_1.RequestBodyObject;
    expect(JSON.stringify(create.content["application/json"]!.schema)).toContain("#/components/schemas/RunConfigInput");
  });
});

describe("authentication", () => {
  it("answers 401 without a token, with an unknown one and with a revoked one", async () => {
    for (const token of [null, "envace_not-a-real-token"]) {
      const res = await api("GET", "/runs", token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: "UNAUTHORIZED", message: "sign in or send an API token", fieldErrors: [] });
    }
    const { token, id } = await createToken(memberId, "to revoke");
    expect((await api("GET", "/me", token)).status).toBe(200);
    // Revoked as its owner does it (from a browser session): the web process then forgets every caller it
    // remembered (server/lib/caller-cache.ts), so the very next request is refused.
    await (await callerFor(memberHeaders)).tokens.revoke({ id });
    expect((await api("GET", "/me", token)).status).toBe(401);
  });

  it("GET /me names the token's user and role", async () => {
    const res = await api("GET", "/me", viewerToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: "viewer", via: "token" });
  });

  it("answers 403 to a viewer's token on every write, before looking at the input", async () => {
    for (const [method, path, body] of [
      ["POST", "/runs", { name: "x", config: quick }],
      ["POST", "/runs/00000000-0000-4000-8000-000000000000/cancel", {}],
      ["POST", "/runs/00000000-0000-4000-8000-000000000000/resume", {}],
      ["POST", "/datasets", { name: "v", text: cm2Jsonl(1) }],
      ["POST", "/reports", { title: "v", runIds: ["00000000-0000-4000-8000-000000000000"] }],
    ] as const) {
      const res = await api(method, path, viewerToken, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ code: "FORBIDDEN", message: "viewers have read-only access" });
    }
  });
});

describe("runs", () => {
  let runId: string;

  it("POST /runs launches a queued run from a partial config (defaults fill the rest)", async () => {
    const res = await api("POST", "/runs", memberToken, { name: "rest run", tags: ["api"], config: quick });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "rest run", status: "queued", kind: "train", totalSteps: 3, tags: ["api"], createdBy: { name: "Test User" } });
    expect(res.body.config.data).toMatchObject({ instancesPerStep: 2, rolloutsPerInstance: 4, dataset: "builtin:shop" });
    expect(typeof res.body.createdAt).toBe("string");
    runId = res.body.id;
    expect(await prisma.run.count({ where: { id: runId } })).toBe(1);
  });

  it("POST /runs answers 400 naming the config field, and nothing is created", async () => {
    const before = await prisma.run.count();
    const res = await api("POST", "/runs", memberToken, { name: "bad", config: { data: { instancesPerStep: 0 } } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("BAD_REQUEST");
    expect(res.body.fieldErrors).toEqual([{ path: "config.data.instancesPerStep", message: "Number must be greater than or equal to 1" }]);
    expect(res.body.message).toContain("data.instancesPerStep");
    expect(await prisma.run.count()).toBe(before);
  });

  it("POST /runs refuses what cannot run, 400 naming the field: an unknown dataset, node or setting, prompts longer than the context", async () => {
    const before = await prisma.run.count();
    const refused = async (config: unknown) => {
      const res = await api("POST", "/runs", memberToken, { name: "refused", config });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
      return res.body as { message: string; fieldErrors: { path: string; message: string }[] };
    };
    let body = await refused({ ...quick, data: { dataset: "builtin:nope" } });
    expect(body.fieldErrors).toEqual([{ path: "config.data.dataset", message: 'unknown built-in domain "nope" (built in: builtin:shop)' }]);
    body = await refused({ ...quick, data: { dataset: "dataset:nope" } });
    expect(body.fieldErrors).toEqual([{ path: "config.data.dataset", message: 'no imported dataset "nope" (import it on the Datasets page, then refer to it by id or name)' }]);
    body = await refused({ ...quick, reward: { judge: { node: "ghost", model: "m" } } });
    expect(body.fieldErrors).toEqual([{ path: "config.reward.judge.node", message: 'node "ghost" (judge) is not registered; add it on the Nodes page' }]);
    expect(body.message).toBe('cannot launch: reward.judge.node: node "ghost" (judge) is not registered; add it on the Nodes page');
    body = await refused({ ...quick, schedule: { steps: 3, evalEvry: 1, wandbProject: "x" } });
    expect(body.fieldErrors).toEqual([
      { path: "config.schedule.evalEvry", message: "unknown setting (did you mean schedule.evalEvery?)" },
      { path: "config.schedule.wandbProject", message: "unknown setting" },
    ]);
    // tau2 retail evaluated on the embedded node: the user simulator's prompts alone exceed its context.
    body = await refused({ kind: "eval", data: { dataset: "tau2:retail", instanceIds: ["0", "1", "2"] }, rollout: { userSimulator: { node: "embedded", model: "tiny-gpt" } } });
    expect(body.fieldErrors).toHaveLength(1);
    expect(body.fieldErrors[0]!.path).toBe("config.rollout.userSimulator.node");
    expect(body.fieldErrors[0]!.message).toMatch(/^tau2:retail user-simulator prompts need ≥ \d,\d{3} tokens; node "embedded" \/ tiny-gpt has 1,024 \(its context length, found by the node doctor\)/);
    expect(await prisma.run.count()).toBe(before);
  });

  it("POST /runs answers 400 naming a top-level field and a wrong type", async () => {
    const res = await api("POST", "/runs", memberToken, { name: "", config: quick });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors).toEqual([{ path: "name", message: "name is required" }]);
    expect(res.body.message).toBe("name: name is required");
    const typed = await api("POST", "/runs", memberToken, { name: "typed", tags: "not-a-list", config: quick });
    expect(typed.status).toBe(400);
    expect(typed.body.fieldErrors[0]).toMatchObject({ path: "tags" });
  });

  it("GET /runs lists with filters; GET /runs/{id} reads one; 404 and 400 for bad ids", async () => {
    const list = await api("GET", "/runs?status=queued&limit=5", memberToken);
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: { id: string }) => r.id)).toContain(runId);
    expect(list.body.items[0]).not.toHaveProperty("config");
    const none = await api("GET", "/runs?status=succeeded&status=failed&search=rest", memberToken);
    expect(none.body.items).toEqual([]);
    const badStatus = await api("GET", "/runs?status=exploded", memberToken);
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.fieldErrors[0].path).toBe("status.0");

    const one = await api("GET", `/runs/${runId}`, viewerToken);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: runId, configVersion: 1, attempts: 0, parentRunId: null });
    expect((await api("GET", "/runs/00000000-0000-4000-8000-000000000000", memberToken)).status).toBe(404);
    const bad = await api("GET", "/runs/not-a-uuid", memberToken);
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors).toEqual([{ path: "id", message: "run id must be a UUID" }]);
  });

  it("POST /runs/{id}/cancel cancels a queued run, 409 the second time; resume re-queues it", async () => {
    // Another member may not cancel it: only its launcher or an admin.
    const other = await signUp("member");
    const otherToken = (await createToken(other.id, "other")).token;
    const refused = await api("POST", `/runs/${runId}/cancel`, otherToken, {});
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/only the member who launched a run, or an admin/);
    const cancelled = await api("POST", `/runs/${runId}/cancel`, memberToken, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "cancelled", cancelRequested: true });
    const again = await api("POST", `/runs/${runId}/cancel`, memberToken, {});
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already finished \(cancelled\)/);
    const resumed = await api("POST", `/runs/${runId}/resume`, memberToken, {});
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: "queued", cancelRequested: false });
    expect((await api("POST", `/runs/${runId}/resume`, memberToken, {})).status).toBe(409);
  });

  it("GET /runs/{id}/metrics returns every key's series, or the keys asked for", async () => {
    const seeded = await seedRunRows(prisma, {
      name: "with metrics",
      createdById: memberId,
      metrics: { "reward/mean": [0.1, 0.2, 0.4], "fidelity/mean": [0.5, 0.6, 0.7] },
      trajectories: [
        { phase: "train", step: 1, instanceId: "a", dataSource: "shop", outcome: "success", reward: 1 },
        { phase: "train", step: 2, instanceId: "b", dataSource: "shop", outcome: "failure", reward: 0 },
        { phase: "eval", step: 3, instanceId: "a", dataSource: "shop", outcome: "success", reward: 1 },
      ],
    });
    const all = await api("GET", `/runs/${seeded}/metrics`, viewerToken);
    expect(all.status).toBe(200);
    expect(all.body.keys).toEqual(["fidelity/mean", "reward/mean"]);
    expect(all.body.series.find((s: { key: string }) => s.key === "reward/mean").points).toEqual([
      { step: 1, value: 0.1, min: 0.1, max: 0.1, n: 1 },
      { step: 2, value: 0.2, min: 0.2, max: 0.2, n: 1 },
      { step: 3, value: 0.4, min: 0.4, max: 0.4, n: 1 },
    ]);
    const one = await api("GET", `/runs/${seeded}/metrics?keys=reward/mean&fromStep=2`, viewerToken);
    expect(one.body.series.map((s: { key: string; points: unknown[] }) => [s.key, s.points.length])).toEqual([["reward/mean", 2]]);
    expect((await api("GET", `/runs/${seeded}/metrics?maxPoints=1`, viewerToken)).body.fieldErrors[0].path).toBe("maxPoints");
    expect((await api("GET", "/runs/00000000-0000-4000-8000-000000000000/metrics", viewerToken)).status).toBe(404);

    const trajectories = await api("GET", `/runs/${seeded}/trajectories?phase=train&sort=reward_desc`, viewerToken);
    expect(trajectories.status).toBe(200);
    expect(trajectories.body.items.map((t: { instanceId: string; reward: number; outcome: string }) => [t.instanceId, t.reward, t.outcome])).toEqual([
      ["a", 1, "success"],
      ["b", 0, "failure"],
    ]);
    expect(trajectories.body.items[0]).not.toHaveProperty("summary");
    expect(trajectories.body.nextCursor).toBeNull();
    const paged = await api("GET", `/runs/${seeded}/trajectories?limit=1`, viewerToken);
    expect(paged.body.items).toHaveLength(1);
    expect(paged.body.nextCursor).toBe(paged.body.items[0].id);
    expect((await api("GET", `/runs/${seeded}/trajectories?outcome=maybe`, viewerToken)).status).toBe(400);
  });
});

describe("a trajectory with its turns", () => {
  it("GET /runs/{runId}/trajectories/{id}: the trajectory, every verdict and its turns page by page, for any reader", async () => {
    const { runId } = await seedRun(prisma, { userId: memberId, name: "with turns", trajectories: 4, turnsPerTrajectory: 9, steps: 1, rolloutsPerInstance: 2, instances: 2 });
    const traj = await prisma.trajectory.findFirstOrThrow({ where: { runId, verdicts: { some: {} } }, orderBy: { numTurns: "desc" }, select: { id: true } });
    const stored = await prisma.turn.findMany({ where: { trajectoryId: traj.id }, orderBy: { index: "asc" } });
    const verdicts = await prisma.checklistVerdict.count({ where: { trajectoryId: traj.id } });
    expect(stored.length).toBeGreaterThan(4);
    expect(verdicts).toBeGreaterThan(0);

    const first = await api("GET", `/runs/${runId}/trajectories/${traj.id}?turnsLimit=4`, viewerToken);
    expect(first.status).toBe(200);
    expect(first.body.trajectory).toMatchObject({ id: traj.id, runId, run: { name: "with turns" }, summary: expect.objectContaining({ dataSource: expect.any(String) }) });
    expect(first.body.verdicts).toHaveLength(verdicts);
    expect(Object.keys(first.body.verdicts[0]).sort()).toEqual(["analysis", "callFailed", "id", "itemId", "passed", "question", "turnIndex", "userTurn", "weight"]);
    expect(first.body.turns.map((t: { index: number }) => t.index)).toEqual([0, 1, 2, 3]);
    expect(first.body.nextTurnsFrom).toBe(4);

    const turns = [...first.body.turns];
    for (let from = first.body.nextTurnsFrom; from !== null; ) {
      const page = await api("GET", `/runs/${runId}/trajectories/${traj.id}?turnsFrom=${from}&turnsLimit=4`, viewerToken);
      expect(page.status).toBe(200);
      turns.push(...page.body.turns);
      from = page.body.nextTurnsFrom;
    }
    // Every turn, with what scripts analyse: act text, tool calls, rehearsed and real responses, fidelity, tokens, advantage.
    expect(turns).toEqual(
      stored.map((t) => ({
        index: t.index, role: t.role, text: t.text, toolCalls: t.toolCalls, rehearsedResponse: t.rehearsedResponse, realResponse: t.realResponse,
        fidelity: t.fidelity, errorCode: t.errorCode, promptTokens: t.promptTokens, responseTokens: t.responseTokens, advantage: t.advantage,
      })),
    );
    expect(turns.some((t) => t.role === "act" && Array.isArray(t.toolCalls) && t.toolCalls[0].name)).toBe(true);
    expect(turns.some((t) => t.rehearsedResponse && t.realResponse && typeof t.fidelity?.score === "number")).toBe(true);

    // Another run's trajectory is not found under this run; bad paging is 400 naming the field.
    const other = await seedRun(prisma, { userId: memberId, name: "other", trajectories: 2, turnsPerTrajectory: 3, steps: 1, rolloutsPerInstance: 2, instances: 1 });
    expect((await api("GET", `/runs/${other.runId}/trajectories/${traj.id}`, viewerToken)).status).toBe(404);
    expect((await api("GET", `/runs/${runId}/trajectories/00000000-0000-4000-8000-000000000000`, viewerToken)).status).toBe(404);
    const tooMany = await api("GET", `/runs/${runId}/trajectories/${traj.id}?turnsLimit=201`, viewerToken);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.fieldErrors[0].path).toBe("turnsLimit");
    expect((await api("GET", `/runs/${runId}/trajectories/not-a-uuid`, viewerToken)).body.fieldErrors[0].path).toBe("id");

    // Signed-in readers only: no token, and a report's share token (which opens only its report), are 401.
    expect((await api("GET", `/runs/${runId}/trajectories/${traj.id}`, null)).status).toBe(401);
    const author = await callerFor(memberHeaders);
    const report = await author.reports.create({ title: "shared", runIds: [runId] });
    const link = await author.reports.shareCreate({ reportId: report.id });
    expect((await api("GET", `/runs/${runId}/trajectories/${traj.id}`, link.token)).status).toBe(401);
  });
});

describe("datasets", () => {
  it("POST /datasets imports a CM2 file; GET /datasets lists it", async () => {
    const res = await api("POST", "/datasets", memberToken, { name: "rest-weather", text: cm2Jsonl(3) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 3, skippedCount: 0, dataset: { name: "rest-weather", format: "cm2", instanceCount: 3 } });
    const list = await api("GET", "/datasets", viewerToken);
    expect(list.status).toBe(200);
    expect(list.body.map((d: { name: string }) => d.name)).toContain("rest-weather");
    expect((await api("POST", "/datasets", memberToken, { name: "rest-weather", text: cm2Jsonl(1) })).status).toBe(409);
  });

  it("answers 400 naming each invalid line, and imports nothing", async () => {
    const bad = { ...cm2Row(2), messages: [] };
    const text = [JSON.stringify(cm2Row(1)), JSON.stringify(bad)].join("\n");
    const res = await api("POST", "/datasets", memberToken, { name: "rest-bad", text });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors[0].path).toBe("line 2");
    expect(await prisma.dataset.count({ where: { name: "rest-bad" } })).toBe(0);
    const badName = await api("POST", "/datasets", memberToken, { name: "no spaces", text });
    expect(badName.body.fieldErrors[0].path).toBe("name");
    // A string is not a boolean: "false" must not read as true.
    const stringly = await api("POST", "/datasets", memberToken, { name: "rest-stringly", text, skipInvalid: "false" });
    expect(stringly.status).toBe(400);
    expect(stringly.body.fieldErrors[0]).toEqual({ path: "skipInvalid", message: "Expected boolean, received string" });
  });
});

describe("nodes", () => {
  it("GET /nodes lists nodes with their health and never the key", async () => {
    await prisma.node.create({ data: { name: "rest-node", kind: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnc: "ENCRYPTED-SECRET", models: ["m"] } });
    const res = await api("GET", "/nodes", viewerToken);
    expect(res.status).toBe(200);
    const node = res.body.find((n: { name: string }) => n.name === "rest-node");
    expect(node).toMatchObject({ kind: "openai", models: ["m"], health: "unknown", hasApiKey: true, capabilities: {} });
    expect(JSON.stringify(res.body)).not.toContain("ENCRYPTED-SECRET");
  });

  it("POST /nodes/{id}/doctor runs the node doctor and records its report; viewers get 403", async () => {
    const node = await prisma.node.create({ data: { name: "rest-doctor", kind: "openai", baseUrl: "http://127.0.0.1:9", models: ["m"] } });
    expect((await api("POST", `/nodes/${node.id}/doctor`, viewerToken, { model: "m" })).status).toBe(403);
    const res = await api("POST", `/nodes/${node.id}/doctor`, memberToken, { model: "m" });
    expect(res.status).toBe(200);
    expect(res.body.node).toMatchObject({ id: node.id, name: "rest-doctor", health: "unhealthy" });
    const [report] = res.body.doctor;
    expect(report).toMatchObject({ doctor: "node", node: "rest-doctor", model: "m", ok: false, checkedBy: "server" });
    expect(report.checks.find((c: { check: string }) => c.check === "models")).toMatchObject({ status: "failed" });
    const listed = (await api("GET", "/nodes", viewerToken)).body.find((n: { name: string }) => n.name === "rest-doctor");
    expect(listed.doctor[0]).toMatchObject({ model: "m", ok: false });
  });
});

describe("MCP servers", () => {
  const memory = {
    name: "rest-memory",
    description: "server-memory from npm",
    launch: {
      transport: "stdio",
      command: process.execPath,
      args: [memoryServerPath],
      env: [
        { name: "MEMORY_FILE_PATH", value: "${EPISODE_DIR}/memory.jsonl" },
        { name: "VENDOR_TOKEN", value: "tok-rest-secret", secret: true },
      ],
    },
  };

  it("POST /mcp-servers registers and tests a stdio server (admins only); every reader lists it and reads its tools, never a secret", async () => {
    for (const token of [memberToken, viewerToken]) {
      const refused = await api("POST", "/mcp-servers", token, memory);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "FORBIDDEN", message: "admin only" });
    }
    expect(await prisma.mcpServer.count({ where: { name: memory.name } })).toBe(0);

    const res = await api("POST", "/mcp-servers", adminToken, memory);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, tools: 9, ms: expect.any(Number) });
    expect(res.body.server).toMatchObject({
      name: "rest-memory",
      health: "healthy",
      serverInfo: { name: "memory-server" },
      launch: { transport: "stdio", cwd: null, env: [{ name: "MEMORY_FILE_PATH", secret: false, value: "${EPISODE_DIR}/memory.jsonl" }, { name: "VENDOR_TOKEN", secret: true, value: null }] },
      settings: { tools: [], limits: { callTimeoutS: 60 } },
    });
    expect(typeof res.body.server.checkedAt).toBe("string");
    expect(JSON.stringify(res.body)).not.toContain("tok-rest-secret");

    const list = await api("GET", "/mcp-servers", viewerToken);
    expect(list.status).toBe(200);
    expect(list.body.map((s: { name: string }) => s.name)).toEqual(["rest-memory"]);
    for (const ref of [res.body.server.id, "rest-memory"]) {
      const one = await api("GET", `/mcp-servers/${ref}`, viewerToken);
      expect(one.status).toBe(200);
      const tool = one.body.tools.find((t: { name: string }) => t.name === "create_entities");
      expect(tool.inputSchema).toMatchObject({ type: "object", required: ["entities"] });
      expect(tool.description).toBeTruthy();
      expect(JSON.stringify(one.body)).not.toContain("tok-rest-secret");
    }
    expect((await api("GET", "/mcp-servers/nobody", viewerToken)).status).toBe(404);
    const bad = await api("GET", "/mcp-servers/Not%20A%20Name", viewerToken);
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors[0].path).toBe("id");
  });

  it("keeps HTTP header values write-only too", async () => {
    const res = await api("POST", "/mcp-servers", adminToken, {
      name: "rest-http",
      launch: { transport: "http", url: "http://127.0.0.1:9/mcp", headers: [{ name: "Authorization", value: "Bearer hdr-rest-secret" }] },
      settings: { limits: { startTimeoutS: 2 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, error: expect.any(String), server: { health: "unhealthy", launch: { transport: "http", headers: [{ name: "Authorization" }] } } });
    expect(JSON.stringify(res.body)).not.toContain("hdr-rest-secret");
    expect(JSON.stringify((await api("GET", "/mcp-servers", viewerToken)).body)).not.toContain("hdr-rest-secret");
  });

  it("answers 400 with the field path for a bad registration, 409 for a taken name", async () => {
    const noCommand = await api("POST", "/mcp-servers", adminToken, { name: "x", launch: { transport: "stdio", command: "" } });
    expect(noCommand.status).toBe(400);
    expect(noCommand.body.fieldErrors).toEqual([{ path: "launch.command", message: "command is required" }]);
    const badLimit = await api("POST", "/mcp-servers", adminToken, { name: "x", launch: { transport: "stdio", command: "node" }, settings: { limits: { callTimeoutS: 0 } } });
    expect(badLimit.body.fieldErrors[0].path).toBe("settings.limits.callTimeoutS");
    const taken = await api("POST", "/mcp-servers", adminToken, memory);
    expect(taken.status).toBe(409);
    expect(taken.body.fieldErrors).toEqual([{ path: "name", message: "already taken" }]);
  });

  it("PATCH, POST …/test and DELETE by name: admins only", async () => {
    for (const [method, p, body] of [
      ["PATCH", "/mcp-servers/rest-memory", { description: "x" }],
      ["POST", "/mcp-servers/rest-memory/test", {}],
      ["DELETE", "/mcp-servers/rest-memory", undefined],
    ] as const) {
      const refused = await api(method, p, memberToken, body);
      expect(refused.status, `${method} ${p}`).toBe(403);
    }
    const updated = await api("PATCH", "/mcp-servers/rest-memory", adminToken, { settings: { tools: ["read_graph", "teleport"] } });
    expect(updated.status).toBe(200);
    expect(updated.body.settings).toEqual({ tools: ["read_graph", "teleport"], limits: { startTimeoutS: 30, callTimeoutS: 60, maxResultBytes: 1048576, maxSessions: 8 } });
    const failing = await api("POST", "/mcp-servers/rest-memory/test", adminToken, {});
    expect(failing.status).toBe(200);
    expect(failing.body).toMatchObject({ ok: false, error: "the selected tool(s) teleport are not offered by the server", server: { health: "unhealthy" } });
    await api("PATCH", "/mcp-servers/rest-memory", adminToken, { settings: { tools: [] } });
    expect((await api("POST", "/mcp-servers/rest-memory/test", adminToken, {})).body).toMatchObject({ ok: true, tools: 9, server: { health: "healthy" } });

    const removed = await api("DELETE", "/mcp-servers/rest-http", adminToken);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: expect.any(String) });
    expect((await api("DELETE", "/mcp-servers/rest-http", adminToken)).status).toBe(404);
  });
});

describe("reports", () => {
  it("POST /reports creates a report; GET /reports/{id}/export gives each format", async () => {
    const run = await seedRunRows(prisma, {
      name: "Report run",
      createdById: memberId,
      trajectories: [
        { phase: "eval", step: 1, instanceId: "t1", dataSource: "tau2_retail", outcome: "success" },
        { phase: "eval", step: 1, instanceId: "t2", dataSource: "tau2_retail", outcome: "failure" },
      ],
    });
    const created = await api("POST", "/reports", memberToken, { title: "REST report", body: "Notes with $x^2$.", runIds: [run] });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    const md = await api("GET", `/reports/${id}/export?format=md`, viewerToken);
    expect(md.status).toBe(200);
    expect(md.body).toMatchObject({ fileName: "rest-report.md", mediaType: "text/markdown" });
    expect(md.body.content).toContain("# REST report");
    expect(md.body.content).toContain("| Report run | 50.00 | 50.00 | 50.00 | 50.00 |");
    expect(md.body.content).toContain("Notes with $x^2$.");
    const csv = await api("GET", `/reports/${id}/export?format=csv`, viewerToken);
    expect(csv.body.content).toContain("Report run,tau2_retail,1,2,50.00,50.00");
    const tex = await api("GET", `/reports/${id}/export?format=latex`, viewerToken);
    expect(tex.body).toMatchObject({ fileName: "rest-report.tex" });
    expect(tex.body.content).toContain("\\begin{tabular}");
    const json = await api("GET", `/reports/${id}/export?format=json`, viewerToken);
    expect(JSON.parse(json.body.content)).toMatchObject({ format: "envace-report/v1", title: "REST report" });

    const badFormat = await api("GET", `/reports/${id}/export?format=docx`, viewerToken);
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.fieldErrors[0].path).toBe("format");
    expect((await api("GET", "/reports/00000000-0000-4000-8000-000000000000/export?format=md", viewerToken)).status).toBe(404);
    const unknownRun = await api("POST", "/reports", memberToken, { title: "x", runIds: ["00000000-0000-4000-8000-000000000000"] });
    expect(unknownRun.status).toBe(400);
    expect(unknownRun.body.fieldErrors).toEqual([{ path: "runIds", message: "unknown run" }]);
  });
});
