/**
 * The node doctor through the API against real Postgres: registering and editing a node (admins) run it,
 * reports are stored per model and listed, settings errors name the field, and runs.create refuses a
 * launch on a node that fails a check the run's role needs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { startVllmDouble, type VllmDouble, type VllmRequest } from "../../../test/doubles/vllm-openai";
import { SkyRLDouble } from "../../../test/doubles/skyrl-tinker";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { DOCTOR_MESSAGES } from "../../../lib/node-doctor";
import { type HfChatRenderer, loadRenderer } from "../../../lib/renderers";

const MODEL = "Qwen/Qwen3-30B-A3B";
/** A model that thinks, then calls the offered tool or answers. */
const capable = (req: VllmRequest) =>
  req.tools?.length ? '<think>weather</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' : "<think>hi</think>\n\nHello there!";

describe("node doctor through the API", () => {
  let admin: TestUser;
  let member: TestUser;
  const doubles: VllmDouble[] = [];
  const vllm = async (opts: Partial<Parameters<typeof startVllmDouble>[0]> = {}) => {
    const d = await startVllmDouble({ model: MODEL, respond: capable, ...opts });
    doubles.push(d);
    return d;
  };

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    member = await signUp("member");
  });
  afterEach(async () => {
    for (const d of doubles.splice(0)) await d.close();
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("registering a node runs the doctor and stores its report per model; the list shows every check", async () => {
    const d = await vllm();
    const added = await (await callerFor(admin.headers)).nodes.add({ name: "judge-a", kind: "openai", baseUrl: d.url });
    expect(added.health).toBe("healthy");
    expect(added.doctor).toHaveLength(1);
    expect(added.doctor[0]).toMatchObject({ model: MODEL, ok: true, checkedBy: "server" });
    const listed = (await (await callerFor(member.headers)).nodes.list()).find((n) => n.name === "judge-a")!;
    expect(listed.models).toEqual([MODEL]);
    expect(listed.doctor[0]!.checks.map((c) => [c.check, c.status])).toEqual([
      ["models", "ok"],
      ["chat", "ok"],
      ["reasoning", "ok"],
      ["tool-calling", "ok"],
    ]);
    const row = await prisma.nodeDoctorReport.findFirstOrThrow({ where: { node: { name: "judge-a" } } });
    expect(row).toMatchObject({ model: MODEL, ok: true, checkedBy: "server" });
  });

  it("a member cannot add a node, so the server never probes a URL a member typed", async () => {
    const d = await vllm();
    await expectTrpcError((await callerFor(member.headers)).nodes.add({ name: "members-gpu", kind: "openai", baseUrl: d.url }), "FORBIDDEN", /admin only/);
    expect(await prisma.node.count({ where: { name: "members-gpu" } })).toBe(0);
    expect(d.requests).toHaveLength(0);
  });

  it("editing validates the settings on the field, drops the old reports and runs the doctor again", async () => {
    const d = await vllm({ apiKey: "sk-node-key" });
    const admins = await callerFor(admin.headers);
    const node = await admins.nodes.add({ name: "edit-me", kind: "openai", baseUrl: d.url });
    expect(node.doctor[0]!.checks[0]).toMatchObject({ check: "models", status: "failed", reason: expect.stringMatching(/HTTP 401 \(check the node's API key\)/) });
    expect(node.health).toBe("unhealthy");

    const bad = await expectTrpcError(admins.nodes.update({ id: node.id, settings: { openai: { extraBody: { max_tokens: 10 } } } }), "BAD_REQUEST");
    // Input errors reach the client as fieldErrors built from these issues (server/trpc/init.ts).
    expect((bad.cause as unknown as { issues: { path: (string | number)[] }[] }).issues[0]!.path.join(".")).toBe("settings.openai.extraBody.max_tokens");
    await expectTrpcError(admins.nodes.update({ id: node.id, settings: { models: { [MODEL]: { renderer: "gpt9" } } } } as never), "BAD_REQUEST", /renderer/);
    expect((await prisma.node.findUniqueOrThrow({ where: { id: node.id } })).settings).toEqual({});

    const saved = await admins.nodes.update({
      id: node.id,
      apiKey: "sk-node-key",
      settings: { models: { [MODEL]: { renderer: "qwen3", enableThinking: false } }, openai: { extraBody: { chat_template_kwargs: { enable_thinking: false } } } },
    });
    expect(saved.health).toBe("healthy");
    expect(saved.doctor.map((r) => [r.model, r.ok])).toEqual([[MODEL, true]]);
    expect(saved.settings).toMatchObject({ models: { [MODEL]: { renderer: "qwen3", enableThinking: false } } });
    // The doctor sent what a run would send: the node's vendor extras.
    expect(d.requests.at(-1)?.chat_template_kwargs).toEqual({ enable_thinking: false });

    // A member may not edit a node, not even one they added before nodes became admin-only.
    await expectTrpcError((await callerFor(member.headers)).nodes.update({ id: node.id, baseUrl: "http://127.0.0.1:7" }), "FORBIDDEN", /admin only/);
    const own = await prisma.node.create({ data: { name: "own-node", kind: "openai", baseUrl: d.url, createdById: member.id }, select: { id: true } });
    await prisma.nodeDoctorReport.create({ data: { nodeId: own.id, model: MODEL, ok: true, report: saved.doctor[0] as never, checkedAt: new Date(), checkedBy: "server" } });
    await expectTrpcError((await callerFor(member.headers)).nodes.update({ id: own.id, baseUrl: "http://127.0.0.1:7" }), "FORBIDDEN");
    // An admin's edit drops the old report and checks the new URL.
    const edited = await admins.nodes.update({ id: own.id, baseUrl: "http://127.0.0.1:7" });
    expect(edited).toMatchObject({ baseUrl: "http://127.0.0.1:7", health: "unhealthy" });
    expect(edited.doctor.map((r) => [r.ok, r.checkedBy])).toEqual([[false, "server"]]);
  });

  it("Run doctor checks a named model and records it beside the others", async () => {
    const d = await vllm();
    const admins = await callerFor(admin.headers);
    const node = await admins.nodes.add({ name: "two-models", kind: "openai", baseUrl: d.url });
    const r = await admins.nodes.doctor({ id: node.id, model: "Qwen/Qwen3-8B" });
    expect(r.reports[0]!.checks[0]!.reason).toBe(`node "two-models" does not serve "Qwen/Qwen3-8B"; /v1/models lists: ${MODEL}`);
    expect(r.doctor.map((x) => x.model).sort()).toEqual([MODEL, "Qwen/Qwen3-8B"].sort());
    expect(r.node.health).toBe("unhealthy");
  });

  it("Run doctor without a model re-checks every model already reported on, and adds no server-only report", async () => {
    const d = await vllm();
    const admins = await callerFor(admin.headers);
    const node = await admins.nodes.add({ name: "rechecked", kind: "openai", baseUrl: d.url });
    await admins.nodes.doctor({ id: node.id, model: "Qwen/Qwen3-8B" });
    const before = d.requests.length;
    const r = await admins.nodes.doctor({ id: node.id });
    expect(r.reports.map((x) => x.model).sort()).toEqual([MODEL, "Qwen/Qwen3-8B"].sort());
    expect(r.doctor.map((x) => x.model).sort()).toEqual([MODEL, "Qwen/Qwen3-8B"].sort());
    expect(d.requests.length).toBeGreaterThan(before);
    expect(await prisma.nodeDoctorReport.count({ where: { nodeId: node.id, model: "" } })).toBe(0);
  });
});

describe("the launch gate (runs.create)", () => {
  let admin: TestUser;
  let member: TestUser;
  const doubles: { close(): Promise<void> }[] = [];
  const evalOn = (node: string, model = MODEL) => ({ kind: "eval" as const, policy: { node, model } });

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    member = await signUp("member");
    await registerCheckedNode(prisma); // the embedded node the configs' other roles name
  });
  afterEach(async () => {
    for (const d of doubles.splice(0)) await d.close();
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("refuses a policy on a node whose tool calling fails, naming node, role, model and check on the field; a judge there is fine", async () => {
    const d = await startVllmDouble({ model: MODEL, respond: capable, toolParser: null });
    doubles.push(d);
    await (await callerFor(admin.headers)).nodes.add({ name: "no-tools", kind: "openai", baseUrl: d.url });
    const before = await prisma.run.count();
    const caller = await callerFor(member.headers);
    const err = await expectTrpcError(
      caller.runs.create({ name: "policy-there", config: evalOn("no-tools") }),
      "BAD_REQUEST",
      /^cannot launch: policy\.node: node "no-tools" \(policy, model "Qwen\/Qwen3-30B-A3B"\) failed the node doctor's tool-calling check \(checked .* UTC\): tool-calling round trip failed: .*--enable-auto-tool-choice --tool-call-parser hermes/,
    );
    expect((err.cause as unknown as { fieldErrors: { path: string }[] }).fieldErrors.map((f) => f.path)).toEqual(["config.policy.node"]);
    expect(await prisma.run.count()).toBe(before);
    // The same node judges: judges need no tool calls.
    const judged = await caller.runs.create({ name: "judge-there", config: { reward: { judge: { node: "no-tools", model: MODEL } } } });
    expect(judged.status).toBe("queued");
  });

  it("checks a node never checked now when the launcher may probe it, and leaves a member's old unchecked node to the worker", async () => {
    const d = await startVllmDouble({ model: MODEL, respond: capable });
    doubles.push(d);
    const system = await prisma.node.create({ data: { name: "never-checked", kind: "openai", baseUrl: d.url }, select: { id: true } });
    await (await callerFor(member.headers)).runs.create({ name: "first", config: { reward: { judge: { node: "never-checked", model: MODEL } } } });
    expect(await prisma.nodeDoctorReport.findMany({ where: { nodeId: system.id }, select: { model: true, ok: true, checkedBy: true } })).toEqual([{ model: MODEL, ok: true, checkedBy: "server" }]);

    // A node a member added before nodes became admin-only: its URL is not probed for members.
    const gone = await prisma.node.create({ data: { name: "members-own", kind: "openai", baseUrl: "http://127.0.0.1:7", createdById: member.id }, select: { id: true } });
    const run = await (await callerFor(member.headers)).runs.create({ name: "worker-decides", config: { reward: { judge: { node: "members-own", model: MODEL } } } });
    expect(run.status).toBe("queued");
    expect(await prisma.nodeDoctorReport.count({ where: { nodeId: gone.id } })).toBe(0);
  });

  it("a failed report refuses even when the launcher may not probe; a fresh passing one is trusted; a stale one is re-checked", async () => {
    const d = await startVllmDouble({ model: MODEL, respond: capable });
    doubles.push(d);
    const own = await prisma.node.create({ data: { name: "checked-by-admin", kind: "openai", baseUrl: d.url, createdById: member.id }, select: { id: true } });
    // An admin checks the member's node while it serves another model.
    await (await callerFor(admin.headers)).nodes.doctor({ id: own.id, model: "other/model" });
    await expectTrpcError(
      (await callerFor(member.headers)).runs.create({ name: "x", config: { reward: { judge: { node: "checked-by-admin", model: "other/model" } } } }),
      "BAD_REQUEST",
      /node "checked-by-admin" \(judge, model "other\/model"\) failed the node doctor's models check/,
    );

    const vetted = await (await callerFor(admin.headers)).nodes.add({ name: "vetted", kind: "openai", baseUrl: d.url });
    const requests = d.requests.length;
    await (await callerFor(member.headers)).runs.create({ name: "fresh", config: { reward: { judge: { node: "vetted", model: MODEL } } } });
    expect(d.requests.length).toBe(requests); // fresh: not probed again
    await prisma.nodeDoctorReport.updateMany({ where: { nodeId: vetted.id }, data: { report: { ...vetted.doctor[0], checkedAt: "2020-01-01T00:00:00.000Z" } as never } });
    await (await callerFor(member.headers)).runs.create({ name: "stale", config: { reward: { judge: { node: "vetted", model: MODEL } } } });
    expect(d.requests.length).toBeGreaterThan(requests);
    const row = await prisma.nodeDoctorReport.findFirstOrThrow({ where: { nodeId: vetted.id } });
    expect(Date.now() - row.checkedAt.getTime()).toBeLessThan(60_000);
  });

  it("refuses a LoRA rank above the limit the doctor found on a Tinker node", async () => {
    const qwen = loadRenderer("qwen3") as HfChatRenderer;
    const rendered = qwen.renderPrompt(DOCTOR_MESSAGES, { addGenerationPrompt: true, enableThinking: false });
    const skyrl = await new SkyRLDouble({
      sampleTokens: () => [...qwen.encode("Hello there!"), 151645],
      promptLogprobs: (p) => p.slice(1).map((t, i) => (rendered[i + 1] === t && rendered[i] === p[i] ? -0.4 : -11.5)),
    }).start();
    doubles.push(skyrl);
    const added = await (await callerFor(admin.headers)).nodes.add({ name: "skyrl", kind: "tinker", baseUrl: skyrl.url });
    expect(added.doctor[0]).toMatchObject({ model: "Qwen/Qwen3-8B", ok: true, facts: { loraRankLimit: 32, profile: "skyrl-jax" } });
    const caller = await callerFor(member.headers);
    await expectTrpcError(
      caller.runs.create({ name: "big-rank", config: { policy: { node: "skyrl", model: "Qwen/Qwen3-8B", loraRank: 64 } } }),
      "BAD_REQUEST",
      /policy\.loraRank 64 is above the largest LoRA rank the node takes \(32, the doctor's lora-rank check\)/,
    );
    expect((await caller.runs.create({ name: "rank-32", config: { policy: { node: "skyrl", model: "Qwen/Qwen3-8B", loraRank: 32 } } })).status).toBe("queued");
  });
});
