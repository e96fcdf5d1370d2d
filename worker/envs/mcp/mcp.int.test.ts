/**
 * `mcp:<server>/<dataset>` against real MCP servers from npm (@modelcontextprotocol/server-memory,
 * @modelcontextprotocol/server-filesystem) and the misbehaving double, with tasks imported through the
 * real datasets router into real Postgres, driven by the engine's training step and evaluation with a
 * scripted policy (the calls are known, so every answer can be checked). Every test ends with no
 * server process left.
 */
import { getEventListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcpLaunchSchema, type McpLaunchInput } from "../../../contracts/mcp";
import { parseRunConfig, type RunConfig, type RunConfigInput } from "../../../contracts/run-config";
import { liveServerProcessCount } from "../../../lib/mcp/processes";
import { storedLaunchOf } from "../../../lib/mcp/store";
import { scriptedToolPolicy, type ScriptedCall } from "../../../test/doubles/scripted-tool-policy";
import { cm2Jsonl } from "../../../test/fixtures/cm2";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { filesystemServerPath, memoryServerPath, misbehavingServerPath, processesUnder, waitForNoProcessesUnder } from "../../../test/mcp";
import type { TrainerClient } from "../../engine/io";
import { runEvaluation, runTrainingStep } from "../../engine/step";
import { openEnvironment, type RunEnvironment } from "..";

let root: string;
let admin: TestUser;

async function register(name: string, launch: McpLaunchInput, settings: Record<string, unknown> = {}) {
  await prisma.mcpServer.create({ data: { name, ...storedLaunchOf(mcpLaunchSchema.parse(launch)), settings: settings as object } });
}

async function importTasks(name: string, tasks: unknown[]) {
  const caller = await callerFor(admin.headers);
  await caller.datasets.import({ name, text: tasks.map((t) => JSON.stringify(t)).join("\n") });
}

function config(over: RunConfigInput): RunConfig {
  const parsed = parseRunConfig({
    kind: "train",
    ...over,
    data: { instancesPerStep: 2, rolloutsPerInstance: 2, seed: 1, ...over.data },
    rollout: { maxAssistantTurns: 6, maxMicroSteps: 40, maxConcurrentRollouts: 4, ...over.rollout },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
}

const logs: string[] = [];
const opened: RunEnvironment[] = [];
async function open(cfg: RunConfig, signal = new AbortController().signal): Promise<RunEnvironment> {
  const env = await openEnvironment({ config: cfg, prisma, note: (m) => logs.push(`warn ${m}`), info: (m) => logs.push(`info ${m}`), signal });
  opened.push(env);
  return env;
}

const trainer: TrainerClient = {
  forwardBackward: async (data) => ({ metrics: { rows: data.length } }),
  optimStep: async () => ({ metrics: {} }),
  updateSampler: async () => {},
  saveWeightsForSampler: async (name) => ({ path: name }),
  saveState: async (name) => ({ path: name }),
  loadState: async () => {},
};

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "envace-mcp-env-"));
  process.env.ENVACE_MCP_SCRATCH_DIR = root;
  await resetDatabase();
  admin = await signUp("admin");
  await register("memory", { transport: "stdio", command: process.execPath, args: [memoryServerPath], env: [{ name: "MEMORY_FILE_PATH", value: "${EPISODE_DIR}/memory.jsonl" }] });
  await register("files", { transport: "stdio", command: process.execPath, args: [filesystemServerPath, "${EPISODE_DIR}"] }, { tools: ["write_file", "read_text_file", "list_directory"] });
  await register("flaky", { transport: "stdio", command: process.execPath, args: [misbehavingServerPath] }, { limits: { callTimeoutS: 1 } });
  await register("broken", { transport: "stdio", command: process.execPath, args: [misbehavingServerPath, "--fail-start"] });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.close?.()));
  expect(await waitForNoProcessesUnder(root)).toEqual([]);
  expect(liveServerProcessCount()).toBe(0);
  logs.length = 0;
});
afterAll(() => {
  delete process.env.ENVACE_MCP_SCRATCH_DIR;
  fs.rmSync(root, { recursive: true, force: true });
});

const toolCalled = (name: string, weight = 1) => ({ question: `Called ${name}`, weight, check: { type: "tool_called", name } });

describe("an MCP server as the environment of a run", () => {
  const remember = "Remember that Ada likes tea.";
  const recall = "What do you know about Bob?";
  const scripts: Record<string, ScriptedCall[]> = {
    [remember]: [
      { name: "read_graph", arguments: {} },
      { name: "create_entities", arguments: { entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }] } },
    ],
    [recall]: [{ name: "open_nodes", arguments: { names: ["Bob"] } }],
  };

  beforeAll(async () => {
    await importTasks("memory-tasks", [
      { id: "ada", instruction: remember, checklist: [toolCalled("create_entities")] },
      {
        id: "bob",
        instruction: recall,
        checklist: [toolCalled("open_nodes")],
        setup: [{ name: "create_entities", arguments: { entities: [{ name: "Bob", entityType: "person", observations: ["plays chess"] }] } }],
      },
    ]);
  });

  it("trains in the rehearse paradigm with shadow execution: the server's tools, its real answers beside the rehearsals, each episode on a fresh server", async () => {
    const cfg = config({ data: { dataset: "mcp:memory/memory-tasks" }, rollout: { paradigm: "rehearse", shadowExecution: true } });
    const env = await open(cfg);
    expect(logs).toContainEqual(expect.stringMatching(/^info MCP server memory \(memory-server [\d.]+\): 9 tool\(s\) offered: create_entities, create_relations, .*read_graph, search_nodes, open_nodes$/));
    const instances = env.forStep(1);
    expect(instances.map((i) => i.id).sort()).toEqual(["task-ada", "task-bob"]);
    expect(instances[0]!.tools.map((t) => t.function.name)).toContain("read_graph");
    expect(instances[0]!.tools.find((t) => t.function.name === "create_entities")!.function.parameters.required).toEqual(["entities"]);

    // The rehearse role imagines an empty graph and a created entity exactly as the server writes them.
    const policy = scriptedToolPolicy(scripts, (name, args) =>
      name === "read_graph" ? '{"entities": [], "relations": []}' : name === "create_entities" ? JSON.stringify({ entities: args.entities }) : '{"entities": [], "relations": []}',
    );
    const result = await runTrainingStep({ instances, config: cfg, policy, trainer, stepIndex: 1, runId: "mcp" });
    expect(result.trajectories).toHaveLength(4);
    expect(result.trajectories.every((t) => t.terminationReason === "checklist_complete")).toBe(true);
    expect(result.trajectories.every((t) => t.reward === 1)).toBe(true);

    const rehearsals = result.trajectories.flatMap((t) => t.turns.filter((x) => x.role === "rehearse"));
    expect(rehearsals).toHaveLength(6);
    const byTool = (name: string) => rehearsals.filter((r) => r.call?.name === name);
    // Isolation: every episode's first read_graph saw an empty graph, though other episodes had created Ada.
    expect(byTool("read_graph").map((r) => r.real)).toEqual(['{"entities": [], "relations": []}', '{"entities": [], "relations": []}']);
    expect(byTool("read_graph").every((r) => r.fidelity?.exact && r.fidelity.score === 1)).toBe(true);
    expect(byTool("create_entities").map((r) => r.real)).toEqual(Array(2).fill('{"entities": [{"name": "Ada", "entityType": "person", "observations": ["likes tea"]}]}'));
    expect(byTool("create_entities").every((r) => r.fidelity?.exact)).toBe(true);
    // The setup call made Bob known to that episode's server; the rehearsal (an empty graph) diverges from it.
    const bob = byTool("open_nodes");
    expect(bob.map((r) => r.real)).toEqual(Array(2).fill('{"entities": [{"name": "Bob", "entityType": "person", "observations": ["plays chess"]}], "relations": []}'));
    expect(bob.every((r) => r.fidelity?.outcome === "values" && r.fidelity.score < 1)).toBe(true);
    // The rehearsed answer, not the real one, entered the conversation.
    const bobTrajectory = result.trajectories.find((t) => t.instanceId === "task-bob")!;
    expect(bobTrajectory.messages.find((m) => m.role === "tool")!.content).toBe('{"entities": [], "relations": []}');
    expect(result.metrics["fidelity/comparisons"]).toBe(6);
    expect(result.metrics["environment/errors"]).toBe(0);
  });

  it("evaluates in the environment paradigm with the fidelity probe: calls go to the server and its answers enter the conversation", async () => {
    await importTasks("file-tasks", [
      {
        id: "notes",
        instruction: "Save 'buy milk' to notes.txt, then read it back.",
        checklist: [toolCalled("write_file", 0.5), toolCalled("read_text_file", 0.5)],
      },
      { id: "outside", instruction: "Read /etc/passwd.", checklist: [toolCalled("read_text_file")] },
      { id: "hidden", instruction: "Move notes.txt away.", checklist: [toolCalled("move_file")] },
    ]);
    const cfg = config({ kind: "eval", data: { dataset: "mcp:files/file-tasks", instancesPerStep: 3 }, rollout: { paradigm: "environment" }, fidelityProbe: true });
    const env = await open(cfg);
    expect(env.evalSet()[0]!.tools.map((t) => t.function.name)).toEqual(["read_text_file", "write_file", "list_directory"]);
    const policy = scriptedToolPolicy(
      {
        "Save 'buy milk' to notes.txt, then read it back.": [
          { name: "write_file", arguments: { path: "notes.txt", content: "buy milk" } },
          { name: "read_text_file", arguments: { path: "notes.txt" } },
        ],
        "Read /etc/passwd.": [{ name: "read_text_file", arguments: { path: "/etc/passwd" } }],
        "Move notes.txt away.": [{ name: "move_file", arguments: { source: "notes.txt", destination: "/tmp/x" } }],
      },
      () => '{"content": "buy milk"}',
    );
    const result = await runEvaluation({ instances: env.evalSet(), config: cfg, policy, stepIndex: 1, runId: "mcp-eval" });
    const byTask = (id: string) => result.trajectories.find((t) => t.instanceId === id)!;

    const notes = byTask("task-notes");
    const answers = notes.turns.filter((t) => t.role === "environment");
    expect(answers[0]!.real).toBe('{"content": "Successfully wrote to notes.txt"}');
    expect(answers[1]!.real).toBe('{"content": "buy milk"}');
    expect(answers[1]!.fidelity).toMatchObject({ exact: true, score: 1 });
    expect(notes.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([answers[0]!.real, answers[1]!.real]);
    expect(notes.reward).toBe(1);

    // The server refuses a path outside its directory: an error answer the policy sees, flagged as such.
    const outside = byTask("task-outside").turns.find((t) => t.role === "environment")!;
    expect(outside.real).toMatch(/^\{"error": "Access denied - path outside allowed directories: \/etc\/passwd/);
    expect(outside.fidelity).toMatchObject({ outcome: "error_mismatch", score: 0 });
    expect(byTask("task-outside").terminationReason).toBe("checklist_complete");

    // A tool left out of the registered selection never reaches the server.
    expect(byTask("task-hidden").turns.find((t) => t.role === "environment")!.real).toBe('{"error": "Tool move_file not found"}');
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it("runs CM2 rows against the server too: its tools replace the rows' own", async () => {
    await (await callerFor(admin.headers)).datasets.import({ name: "cm2-rows", text: cm2Jsonl(2) });
    const env = await open(config({ data: { dataset: "mcp:memory/cm2-rows" }, rollout: { paradigm: "environment" }, reward: { judge: { node: "judge", model: "j" } } }));
    const [task] = env.forStep(1);
    expect(task!.id).toMatch(/^cm2-/);
    expect(task!.tools.map((t) => t.function.name)).not.toContain("get_forecast");
    expect(task!.tools.map((t) => t.function.name)).toContain("read_graph");
    expect(task!.environment).toBeDefined();
    // The run's episodes start their own server; this one is created and closed here.
    const world = await task!.environment!.create();
    expect(await world.execute("read_graph", "{}")).toEqual({ content: '{"entities": [], "relations": []}', isError: false });
    expect(await world.execute("read_graph", "[1]")).toEqual({ content: '{"error": "the arguments of read_graph must be a JSON object"}', isError: true });
    await world.close!();
  });

  it("refuses what it cannot run, naming why", async () => {
    await expect(open(config({ data: { dataset: "mcp:nobody/memory-tasks" } }))).rejects.toThrow(/no MCP server named "nobody" is registered/);
    await expect(open(config({ data: { dataset: "mcp:memory/no-such-tasks" } }))).rejects.toThrow(/no imported dataset "no-such-tasks"/);
    await expect(open(config({ data: { dataset: "mcp:broken/memory-tasks" } }))).rejects.toThrow(/MCP server broken could not be started to list its tools: .*cannot open its database/s);
    expect((await prisma.mcpServer.findUniqueOrThrow({ where: { name: "broken" } })).health).toBe("unhealthy");
    await importTasks("judged-tasks", [{ instruction: "Remember Ada.", checklist: ["Did it remember Ada?"] }]);
    await expect(open(config({ data: { dataset: "mcp:memory/judged-tasks" } }))).rejects.toThrow(/LLM-judged checklists: set reward.judge/);
    await prisma.mcpServer.update({ where: { name: "memory" }, data: { settings: { tools: ["read_graph", "forget_everything"] } } });
    await expect(open(config({ data: { dataset: "mcp:memory/memory-tasks" } }))).rejects.toThrow(/no longer offers the selected tool\(s\) forget_everything/);
    await prisma.mcpServer.update({ where: { name: "memory" }, data: { settings: {} } });
  });
});

describe("an MCP server that misbehaves during a run", () => {
  const tasks = [
    { id: "ok", instruction: "echo", checklist: [toolCalled("echo")] },
    { id: "crash", instruction: "crash", checklist: [toolCalled("crash")] },
    { id: "hang", instruction: "hang", checklist: [toolCalled("hang")] },
    { id: "huge", instruction: "huge", checklist: [toolCalled("huge")] },
    { id: "malformed", instruction: "malformed", checklist: [toolCalled("malformed")] },
    { id: "setup", instruction: "setup", checklist: [toolCalled("echo")], setup: [{ name: "fail", arguments: { message: "no fixtures" } }] },
  ];
  const policy = scriptedToolPolicy({
    echo: [{ name: "echo", arguments: { text: "hi" } }],
    crash: [{ name: "crash", arguments: {} }],
    hang: [{ name: "hang", arguments: {} }],
    huge: [{ name: "huge", arguments: { mb: 50 } }],
    malformed: [{ name: "malformed", arguments: {} }],
    setup: [{ name: "echo", arguments: { text: "never" } }],
  });

  beforeAll(async () => {
    await importTasks("flaky-tasks", tasks);
  });

  it("ends each broken episode with a recorded environment error, goes on with the others, and stops every server", async () => {
    const cfg = config({ kind: "eval", data: { dataset: "mcp:flaky/flaky-tasks", instancesPerStep: 6 }, rollout: { paradigm: "environment", maxEnvironmentErrorShare: 1 } });
    const env = await open(cfg);
    const result = await runEvaluation({ instances: env.evalSet(), config: cfg, policy, stepIndex: 1 });
    const reasons = Object.fromEntries(result.trajectories.map((t) => [t.instanceId, t.terminationReason]));
    expect(reasons).toEqual({
      "task-ok": "checklist_complete",
      "task-crash": "environment_error:CRASHED",
      "task-hang": "environment_error:TIMEOUT",
      "task-huge": "environment_error:RESULT_TOO_LARGE",
      "task-malformed": "environment_error:MALFORMED_RESULT",
      "task-setup": "environment_error:SETUP_FAILED",
    });
    const crash = result.trajectories.find((t) => t.instanceId === "task-crash")!.turns.at(-1)!;
    expect(crash).toMatchObject({ role: "environment", call: { name: "crash" }, error: { code: "CRASHED", payload: expect.stringMatching(/exited with code 3.*segfault/s) } });
    expect(result.trajectories.find((t) => t.instanceId === "task-setup")!.turns.at(-1)!.error!.payload).toMatch(/setup call 1 \(fail\) answered with an error: \{"error": "no fixtures"\}/);
    expect(result.metrics["environment/errors"]).toBe(5);
  });

  it("holds one listener on the run's signal however many episodes start, fail or call at once (no MaxListenersExceededWarning)", async () => {
    const run = new AbortController();
    const cfg = config({ kind: "eval", data: { dataset: "mcp:flaky/flaky-tasks", instancesPerStep: 6 }, rollout: { paradigm: "environment", maxEnvironmentErrorShare: 1, maxConcurrentRollouts: 12 } });
    const env = await open(cfg, run.signal);
    const warnings: string[] = [];
    const onWarning = (w: Error) => void (w.name === "MaxListenersExceededWarning" && warnings.push(w.message));
    process.on("warning", onWarning);
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, getEventListeners(run.signal, "abort").length)), 5);
    try {
      // 12 episodes in flight at once: each starts a server and calls it; some fail to start or crash.
      await runEvaluation({ instances: [...env.evalSet(), ...env.evalSet()], config: cfg, policy, stepIndex: 1 });
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      clearInterval(sampler);
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
    expect(most).toBe(1);
    await env.close!();
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("fails the step when more episodes broke than the run allows", async () => {
    const cfg = config({ kind: "eval", data: { dataset: "mcp:flaky/flaky-tasks", instancesPerStep: 6 }, rollout: { paradigm: "environment", maxEnvironmentErrorShare: 0.5 } });
    const env = await open(cfg);
    await expect(runEvaluation({ instances: env.evalSet(), config: cfg, policy, stepIndex: 1 })).rejects.toMatchObject({ code: "TOO_MANY_ERRORED_EPISODES", message: expect.stringContaining("above rollout.maxEnvironmentErrorShare = 0.5 (environment failed: ") });
  });

  it("stops the servers of a run that closes in the middle of its episodes (cancel)", async () => {
    const cfg = config({ kind: "eval", data: { dataset: "mcp:flaky/flaky-tasks", instancesPerStep: 6 }, rollout: { paradigm: "environment" } });
    await prisma.mcpServer.update({ where: { name: "flaky" }, data: { settings: { limits: { callTimeoutS: 600 } } } });
    try {
      const env = await open(cfg);
      const hang = env.evalSet().find((i) => i.id === "task-hang")!;
      const episode = runEvaluation({ instances: [hang, hang, hang], config: cfg, policy, stepIndex: 1 }).then(
        () => null,
        (e: unknown) => e,
      );
      // Wait until the three servers are up and hanging.
      const deadline = Date.now() + 20_000;
      while (processesUnder(root).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(processesUnder(root)).toHaveLength(3);
      await env.close!();
      expect(await waitForNoProcessesUnder(root, 5000)).toEqual([]);
      // The episodes end (their calls fail) instead of waiting out the 600 s timeout.
      expect(await episode).toMatchObject({ code: "TOO_MANY_ERRORED_EPISODES", message: expect.stringContaining("every episode (3 of 3) errored (environment failed: 3)") });
    } finally {
      await prisma.mcpServer.update({ where: { name: "flaky" }, data: { settings: { limits: { callTimeoutS: 1 } } } });
    }
  });

  it("runs at most limits.maxSessions episodes of a server at once", async () => {
    await prisma.mcpServer.update({ where: { name: "flaky" }, data: { settings: { limits: { callTimeoutS: 1, maxSessions: 2 } } } });
    const cfg = config({ kind: "eval", data: { dataset: "mcp:flaky/flaky-tasks", instancesPerStep: 6 }, rollout: { paradigm: "environment", maxConcurrentRollouts: 6 } });
    const env = await open(cfg);
    const hang = env.evalSet().find((i) => i.id === "task-hang")!;
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, processesUnder(root).length)), 20);
    try {
      await runEvaluation({ instances: [hang, hang, hang, hang], config: { ...cfg, rollout: { ...cfg.rollout, maxEnvironmentErrorShare: 1 } }, policy, stepIndex: 1 }).catch(() => {});
    } finally {
      clearInterval(sampler);
      await prisma.mcpServer.update({ where: { name: "flaky" }, data: { settings: { limits: { callTimeoutS: 1 } } } });
    }
    expect(most).toBe(2);
  });
});
