/**
 * An MCP server as an environment from the CLI only: the `envace` CLI as a child process against a real
 * HTTP server (the app's REST and live-event routes, test/api-server.ts), real Postgres, a real worker
 * process and the real embedded node. An admin registers @modelcontextprotocol/server-memory (installed
 * from npm), a member imports a task list, launches a training run in the rehearse paradigm with shadow
 * execution and follows it with `runs watch` to success, then an evaluation run in the environment
 * paradigm; the rehearsed and the real tool responses are recorded side by side. Small on purpose (two
 * steps, two tasks, two rollouts each, short generations): the slow part is the CPU model.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApiServer, type ApiServer } from "../test/api-server";
import { cliRunner, type CliResult, type RunningCli } from "../test/cli";
import { callerFor, prisma, resetDatabase, signUp } from "../test/helpers";
import { memoryServerPath, waitForNoProcessesUnder } from "../test/mcp";
import { spawnTsx, startEmbeddedNode, type Child } from "../test/processes";

const databaseUrl = inject("databaseUrl");

let server: ApiServer;
let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
let worker: Child;
let configDir: string;
let root: string;
let adminToken: string;
let memberToken: string;

const cli = cliRunner(() => configDir);
const as = (token: string) => ({ env: { ENVACE_URL: server.url, ENVACE_TOKEN: token } });
const admin = (args: string[]) => cli.run(args, as(adminToken));
const member = (args: string[]) => cli.run(args, as(memberToken));

/** Sizes that keep a run on the CPU model short; every one is an ordinary run setting. */
const small = [
  "data.instancesPerStep=2",
  "data.rolloutsPerInstance=2",
  "rollout.maxAssistantTurns=2",
  "rollout.maxMicroSteps=8",
  "rollout.maxConcurrentRollouts=4",
  "rollout.responseBudgetTokens=128",
  "sampling.act.maxTokens=128",
  "sampling.rehearse.maxTokens=128",
  "sampling.evalAct.maxTokens=128",
  "sampling.evalRehearse.maxTokens=128",
].flatMap((s) => ["--set", s]);

/** A run on the CPU model takes seconds here and minutes on a loaded machine; a hung one shows what the worker said. */
const RUN_TIMEOUT_MS = 540_000;
const TEST_TIMEOUT_MS = 600_000;

/** A following CLI command's result once the run it follows has ended; if it never does, what the CLI and the worker said. */
async function toTheEnd(running: RunningCli): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the run did not end\nstdout:\n${running.stdout()}\nstderr:\n${running.stderr()}\nworker:\n${worker.output()}`)), RUN_TIMEOUT_MS);
  });
  try {
    return await Promise.race([running.done, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The `runs watch` progress lines: `[#####---]  1/2 steps  50%  ETA …  running  …`. */
const progressLines = (stdout: string) => stdout.split("\n").filter((l) => /^\[[#-]{24}\] +\d+\/\d+ steps/.test(l));

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "envace-cli-mcp-"));
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-cli-mcp-config-"));
  // The API's test of a server starts it here, as the worker's episodes do.
  process.env.ENVACE_MCP_SCRATCH_DIR = root;
  await resetDatabase();
  server = await startApiServer();
  const adminUser = await signUp("admin");
  const memberUser = await signUp("member");
  adminToken = (await (await callerFor(adminUser.headers)).tokens.create({ name: "cli" })).token;
  memberToken = (await (await callerFor(memberUser.headers)).tokens.create({ name: "cli" })).token;
  node = await startEmbeddedNode();
  await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
  worker = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, ENVACE_MCP_SCRATCH_DIR: root, WORKER_CONCURRENCY: "1" });
});

afterAll(async () => {
  cli.killAll();
  await worker?.kill("SIGKILL");
  await node?.kill("SIGKILL");
  await server?.close();
  const { getBoss } = await import("../server/lib/queue");
  await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  delete process.env.ENVACE_MCP_SCRATCH_DIR;
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(configDir, { recursive: true, force: true });
});

describe("an npm MCP server as an environment, from the CLI only", () => {
  it("an admin registers server-memory; a member cannot; every signed-in user lists it and reads its tools, never a secret", async () => {
    const register = ["mcp", "register", "memory", "--stdio", process.execPath, "--arg", memoryServerPath, "--env", "MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl", "--secret-env", "VENDOR_TOKEN"];
    const env = { VENDOR_TOKEN: "tok-cli-secret" };

    const refused = await cli.run(register, { env: { ...as(memberToken).env, ...env } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("error: admin only (HTTP 403 FORBIDDEN)");
    const badName = await admin(["mcp", "register", "Memory!", "--stdio", "node"]);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain("(HTTP 400 BAD_REQUEST)");
    expect(badName.stderr).toContain("\n  name: lowercase letters, digits, - and _ (max 63)\n");

    const res = await cli.run(register, { env: { ...as(adminToken).env, ...env } });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Registered MCP server memory \([0-9a-f-]{36}\): healthy, 9 tool\(s\): create_entities, create_relations, .*open_nodes\.\n/);
    expect(res.stdout).toContain("Use it in a run: --set data.dataset=mcp:memory/<dataset>\n");
    // The secret went to the database encrypted, not as given.
    expect(JSON.stringify((await prisma.mcpServer.findUniqueOrThrow({ where: { name: "memory" } })).env)).not.toContain("tok-cli-secret");

    const list = await member(["mcp", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(`memory  healthy    stdio   9 tools  ${process.execPath} ${memoryServerPath}\n`);
    const tools = await member(["mcp", "tools", "memory"]);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^memory \(memory-server [\d.]+\): healthy, checked \d{4}-\d\d-\d\d \d\d:\d\d\n/);
    expect(tools.stdout).toContain("\ncreate_entities(entities: array)\n    Create multiple new entities in the knowledge graph\n");
    expect(tools.stdout).toContain("\nread_graph()\n");
    const json = await member(["--json", "mcp", "tools", "memory"]);
    const schemas = JSON.parse(json.stdout) as { name: string; inputSchema: { required?: string[] } }[];
    expect(schemas).toHaveLength(9);
    expect(schemas.find((t) => t.name === "open_nodes")!.inputSchema.required).toEqual(["names"]);
    expect((await member(["--json", "mcp", "list"])).stdout).not.toContain("tok-cli-secret");
    const unknown = await member(["mcp", "tools", "nobody"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("MCP server nobody not found (HTTP 404 NOT_FOUND)");

    const tested = await admin(["mcp", "test", "memory"]);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^MCP server memory is healthy: 9 tool\(s\) listed in \d+ ms\.\n$/);
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
  });

  it("imports a task list, trains in the rehearse paradigm with shadow execution, and `runs watch` follows it to success", async () => {
    const file = path.join(configDir, "memory-tasks.jsonl");
    // The embedded tiny model knows only the shop domain it was warm-started on: asked in its words it calls the
    // tools it learned; the calls reach the real server, which answers them as MCP servers answer unknown tools.
    const tasks = [
      { id: "price", system: "You are a shop assistant. Use the tools.", instruction: "How much is the tea?", checklist: [{ question: "Looked the tea up", check: { type: "tool_called", name: "get_item" } }] },
      { id: "buy", system: "You are a shop assistant. Use the tools.", instruction: "Please buy 1 tea for me.", checklist: [{ question: "Stored the purchase", check: { type: "tool_called", name: "create_entities" } }] },
    ];
    fs.writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join("\n"));
    const imported = await member(["datasets", "import", file]);
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toMatch(/^Imported 2 task\(s\) into dataset "memory-tasks"/);

    const created = await member([
      "runs", "create", "--preset", "quickstart", "--name", "mcp-train",
      "--set", "data.dataset=mcp:memory/memory-tasks",
      "--set", "rollout.paradigm=rehearse",
      "--set", "rollout.shadowExecution=true",
      "--set", "schedule.steps=2", "--set", "schedule.saveEvery=2", "--set", "schedule.evalEvery=2",
      ...small,
    ]); // prettier-ignore
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const id = /^Created run ([0-9a-f-]{36}) "mcp-train" \(queued, 2 steps\)/.exec(created.stdout)![1]!;

    const res = await toTheEnd(cli.start(["runs", "watch", id], as(memberToken)));
    const run = await prisma.run.findUniqueOrThrow({ where: { id }, select: { status: true, error: true } });
    expect(run.error, worker.output()).toBeNull();
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines[0]).toBe(`mcp-train (${id}) — train, rehearse paradigm, node embedded`);
    expect(lines.at(-1)).toBe("run succeeded");
    // Live progress: it watched the run from before it finished to its end, one line per change.
    const progress = progressLines(res.stdout);
    expect(progress.length, res.stdout).toBeGreaterThanOrEqual(2);
    expect(progress[0]).not.toContain("succeeded");
    expect(progress.at(-1)).toMatch(/^\[#{24}\] {2}2\/2 steps {2}100% {2}ETA — {2}succeeded {2}reward\/mean [\d.]+/);

    const logs = await prisma.runLog.findMany({ where: { runId: id }, select: { message: true } });
    expect(logs.map((l) => l.message)).toContainEqual(expect.stringMatching(/^MCP server memory \(memory-server [\d.]+\): 9 tool\(s\) offered: create_entities, /));
    // Shadow execution: each rehearsed response (what entered the conversation) beside the server's real one, scored.
    const rehearsed = await prisma.turn.findMany({
      where: { role: "rehearse", trajectory: { runId: id, phase: "train" } },
      select: { rehearsedResponse: true, realResponse: true, fidelity: true },
    });
    expect(rehearsed.length, "the tiny model made no tool call in 8 training episodes").toBeGreaterThan(0);
    for (const t of rehearsed) {
      expect(t.rehearsedResponse, JSON.stringify(t)).not.toBeNull();
      expect(t.realResponse, JSON.stringify(t)).not.toBeNull();
      expect(t.fidelity).toMatchObject({ score: expect.any(Number), outcome: expect.any(String) });
    }
    // The real answers are server-memory's own: its graph, or its error for a tool it lacks.
    expect(rehearsed.some((t) => /^\{"error": "MCP error -32602: Tool \w+ not found"\}$/.test(t.realResponse!) || t.realResponse!.startsWith('{"entities"'))).toBe(true);
    expect(await prisma.fidelityStat.count({ where: { runId: id } })).toBeGreaterThan(0);
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("evaluates in the environment paradigm with the fidelity probe, launched and watched in one command", async () => {
    const res = await toTheEnd(cli.start([
      "runs", "create", "--preset", "environmentBaseline", "--name", "mcp-eval", "--watch",
      "--set", "kind=eval",
      "--set", "data.dataset=mcp:memory/memory-tasks",
      "--set", "fidelityProbe=true",
      ...small,
    ], as(memberToken))); // prettier-ignore
    const id = /^Created run ([0-9a-f-]{36}) "mcp-eval"/.exec(res.stdout)?.[1];
    expect(id, res.stdout + res.stderr).toBeDefined();
    const run = await prisma.run.findUniqueOrThrow({ where: { id: id! }, select: { status: true, error: true, kind: true } });
    expect(run.error, worker.output()).toBeNull();
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain(`mcp-eval (${id}) — eval, environment paradigm, node embedded\n`);
    expect(res.stdout.trim().split("\n").at(-1)).toBe("run succeeded");
    expect(run).toMatchObject({ kind: "eval", status: "succeeded" });

    // The server's answers entered the conversation; the probe's rehearsal of each is scored against it.
    const answers = await prisma.turn.findMany({ where: { role: "environment", trajectory: { runId: id } }, select: { text: true, realResponse: true, rehearsedResponse: true, fidelity: true } });
    expect(answers.length, "the tiny model made no tool call in the evaluation episodes").toBeGreaterThan(0);
    for (const a of answers) expect(a.realResponse).toBe(a.text);
    expect(answers.some((a) => a.rehearsedResponse !== null && a.fidelity !== null)).toBe(true);
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
    expect(fs.readdirSync(root)).toEqual([]);
  }, TEST_TIMEOUT_MS);
});
