/**
 * MCP servers as environments end to end: a real worker process, the real embedded node as the policy,
 * real Postgres, and the real npm server @modelcontextprotocol/server-memory registered through the
 * API — a training run in the rehearse paradigm with shadow execution and an evaluation run in the
 * environment paradigm with the fidelity probe. Then a server whose episodes hang: cancelling the run
 * and stopping the worker both leave no server process behind (counted in /proc).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { memoryServerPath, misbehavingServerPath, processesUnder, waitForNoProcessesUnder } from "../../test/mcp";
import { spawnTsx, startEmbeddedNode, type Child } from "../../test/processes";

const databaseUrl = inject("databaseUrl");

const tiny = { temperature: 1, topP: 1, maxTokens: 128 };
const small = (over: RunConfigInput): RunConfigInput => ({
  policy: { node: "embedded", model: "tiny-gpt" },
  ...over,
  rollout: { maxAssistantTurns: 2, maxUserTurns: 1, maxMicroSteps: 8, promptBudgetTokens: 1024, responseBudgetTokens: 128, maxConcurrentRollouts: 4, ...over.rollout },
  sampling: { act: tiny, rehearse: tiny, evalAct: tiny, evalRehearse: tiny },
});

describe("MCP servers as environments through a real worker and the embedded node", () => {
  let admin: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let root: string;
  const workers: Child[] = [];

  const startWorker = () => {
    const w = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, ENVACE_MCP_SCRATCH_DIR: root, WORKER_CONCURRENCY: "1" });
    workers.push(w);
    return w;
  };
  const finished = (id: string, worker: Child) =>
    eventually(
      async () => {
        const r = await (await callerFor(admin.headers)).runs.get({ id });
        return ["succeeded", "failed", "cancelled"].includes(r.status) ? r : null;
      },
      300_000,
      `run to finish\n${worker.output()}`,
    );
  const logsOf = async (runId: string) => (await (await callerFor(admin.headers)).runs.logs({ runId, limit: 2000 })).map((l) => l.message);

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "envace-mcp-worker-"));
    await resetDatabase();
    admin = await signUp("admin");
    node = await startEmbeddedNode();
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
    const caller = await callerFor(admin.headers);
    const registered = await caller.mcpServers.register({
      name: "memory",
      launch: { transport: "stdio", command: process.execPath, args: [memoryServerPath], env: [{ name: "MEMORY_FILE_PATH", value: "${EPISODE_DIR}/memory.jsonl" }] },
    });
    expect(registered.ok).toBe(true);
    await caller.datasets.import({
      name: "memory-tasks",
      // The embedded tiny model knows only the shop domain it was warm-started on: asked in that domain's words, it
      // calls the tools it learned (get_item, add_to_cart…), the calls reach the real server, and the server answers
      // them as MCP servers answer calls to tools they lack. A capable policy would call create_entities instead.
      text: [
        { id: "price", system: "You are a shop assistant. Use the tools.", instruction: "How much is the tea?", checklist: [{ question: "Looked the tea up", check: { type: "tool_called", name: "get_item" } }] },
        { id: "buy", system: "You are a shop assistant. Use the tools.", instruction: "Please buy 1 tea for me.", checklist: [{ question: "Stored the purchase", check: { type: "tool_called", name: "create_entities" } }] },
      ]
        .map((t) => JSON.stringify(t))
        .join("\n"),
    });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("trains with rehearsal and shadow execution, then evaluates in the environment paradigm, against server-memory", async () => {
    const worker = startWorker();
    const caller = await callerFor(admin.headers);

    const train = await caller.runs.create({
      name: "mcp-train",
      config: small({
        kind: "train",
        data: { dataset: "mcp:memory/memory-tasks", instancesPerStep: 2, rolloutsPerInstance: 4, seed: 3 },
        rollout: { paradigm: "rehearse", shadowExecution: true },
        optim: { lr: 1e-3 },
        schedule: { steps: 2, saveEvery: 2, evalEvery: 2 },
      }),
    });
    const trained = await finished(train.id, worker);
    expect(trained.error, worker.output()).toBeNull();
    expect(trained.status).toBe("succeeded");
    expect(await logsOf(train.id)).toContainEqual(expect.stringMatching(/^MCP server memory \(memory-server [\d.]+\): 9 tool\(s\) offered: create_entities, /));

    const trainTurns = await prisma.turn.findMany({ where: { trajectory: { runId: train.id, phase: "train" } }, select: { role: true, realResponse: true, rehearsedResponse: true, fidelity: true, advantage: true, responseTokens: true } });
    expect(trainTurns.some((t) => t.role === "act" && t.responseTokens > 0 && t.advantage !== null)).toBe(true);
    // Every call the policy made was executed for real by that episode's server, beside its rehearsal.
    const shadowed = trainTurns.filter((t) => t.role === "rehearse");
    expect(shadowed.length, "the tiny model made no tool call in 16 episodes").toBeGreaterThan(0);
    for (const t of shadowed) {
      expect(t.realResponse, JSON.stringify(t)).not.toBeNull();
      expect(t.fidelity).toMatchObject({ score: expect.any(Number), outcome: expect.any(String) });
    }
    // The memory server answers the tiny model's calls (shop tools it learned) as MCP servers do: an isError result.
    expect(shadowed.some((t) => /^\{"error": "MCP error -32602: Tool \w+ not found"\}$/.test(t.realResponse!) || t.realResponse!.startsWith('{"entities"'))).toBe(true);
    const stats = await prisma.fidelityStat.count({ where: { runId: train.id } });
    expect(stats).toBeGreaterThan(0);
    expect(await prisma.metricPoint.count({ where: { runId: train.id, key: "environment/error_share" } })).toBeGreaterThan(0);

    const evaluation = await caller.runs.create({
      name: "mcp-eval",
      config: small({ kind: "eval", data: { dataset: "mcp:memory/memory-tasks", instancesPerStep: 2 }, rollout: { paradigm: "environment" }, trialsPerTask: 3, fidelityProbe: true }),
    });
    const evaluated = await finished(evaluation.id, worker);
    expect(evaluated.error, worker.output()).toBeNull();
    expect(evaluated.status).toBe("succeeded");
    const evalTurns = await prisma.turn.findMany({ where: { trajectory: { runId: evaluation.id } }, select: { role: true, text: true, realResponse: true, fidelity: true } });
    const answers = evalTurns.filter((t) => t.role === "environment");
    expect(answers.length, "the tiny model made no tool call in 6 evaluation episodes").toBeGreaterThan(0);
    // In the environment paradigm the server's answer is the tool message; the probe's rehearsal is scored against it.
    for (const a of answers) expect(a.realResponse).toBe(a.text);
    expect(answers.some((a) => a.fidelity !== null)).toBe(true);
    expect(await prisma.trajectory.count({ where: { runId: evaluation.id } })).toBe(6);

    expect(await waitForNoProcessesUnder(root)).toEqual([]);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it("stops every server of a cancelled run, and of a worker that shuts down", async () => {
    const caller = await callerFor(admin.headers);
    const marker = path.join(os.tmpdir(), `envace-mcp-hang-${process.pid}-${Date.now()}`);
    await caller.mcpServers.register({
      name: "stuck",
      launch: { transport: "stdio", command: process.execPath, args: [misbehavingServerPath, "--hang-start-if-exists", marker] },
      settings: { limits: { startTimeoutS: 600 } },
    });
    // Registering tested it (its first start): from the next start on (the run's tool discovery) it behaves once more, then hangs.
    fs.rmSync(marker, { force: true });
    const config = small({ kind: "eval", data: { dataset: "mcp:stuck/memory-tasks", instancesPerStep: 2 }, rollout: { paradigm: "environment" }, trialsPerTask: 2 });
    try {
      // Cancel: the run's four episodes wait on servers that never finish starting.
      let worker = workers.at(-1) ?? startWorker();
      const run = await caller.runs.create({ name: "mcp-cancel", config });
      await eventually(async () => processesUnder(root).length >= 4, 120_000, `four hanging servers\n${worker.output()}`);
      await caller.runs.cancel({ id: run.id });
      expect((await finished(run.id, worker)).status).toBe("cancelled");
      expect(await waitForNoProcessesUnder(root, 20_000)).toEqual([]);

      // Worker shutdown (SIGTERM) in the middle of a run.
      fs.rmSync(marker, { force: true });
      const second = await caller.runs.create({ name: "mcp-shutdown", config });
      await eventually(async () => processesUnder(root).length >= 4, 120_000, `four hanging servers\n${worker.output()}`);
      await worker.kill("SIGTERM");
      expect(await waitForNoProcessesUnder(root, 20_000)).toEqual([]);
      // The run is picked up again by the next worker; cancel it, and nothing is left either.
      worker = startWorker();
      await caller.runs.cancel({ id: second.id });
      expect((await finished(second.id, worker)).status).toBe("cancelled");
      expect(await waitForNoProcessesUnder(root, 20_000)).toEqual([]);
    } finally {
      fs.rmSync(marker, { force: true });
    }
  });
});
