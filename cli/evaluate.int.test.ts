/**
 * Train, then evaluate the trained policy from the CLI only: the `envace` CLI as a child process against
 * the app's REST and live-event routes (test/api-server.ts), real Postgres, a real worker process and the
 * real embedded node. A 2-step training run saves a checkpoint; `envace runs evaluate <run> --step latest
 * --dataset bfcl:multi_turn_base --set data.instanceIds=… --repeats 2 --watch` follows the evaluation to
 * success, its two passes sampled through a sampling session on the checkpoint's path; bad references
 * fail with the field named. Small on purpose: one BFCL task, short generations.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApiServer, type ApiServer } from "../test/api-server";
import { cliRunner, type CliResult, type RunningCli } from "../test/cli";
import { callerFor, prisma, resetDatabase, signUp } from "../test/helpers";
import { startEmbeddedNode, startWorkerProcess, type Child } from "../test/processes";

const databaseUrl = inject("databaseUrl");

let server: ApiServer;
let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
let worker: Child;
let configDir: string;
let token: string;

const cli = cliRunner(() => configDir);
const env = () => ({ env: { ENVACE_URL: server.url, ENVACE_TOKEN: token } });

/** Sizes that keep the CPU model's runs short; the entropy bonus makes two steps change the weights whatever the rewards. */
const small = [
  "data.poolSize=2",
  "data.instancesPerStep=2",
  "data.rolloutsPerInstance=2",
  "rollout.maxAssistantTurns=2",
  "rollout.maxMicroSteps=8",
  "rollout.responseBudgetTokens=64",
  "sampling.act.maxTokens=64",
  "sampling.rehearse.maxTokens=64",
  "sampling.evalAct.maxTokens=64",
  "sampling.evalRehearse.maxTokens=64",
  "optim.entropyCoef=1",
].flatMap((s) => ["--set", s]);

async function toTheEnd(running: RunningCli): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the run did not end\nstdout:\n${running.stdout()}\nstderr:\n${running.stderr()}\nworker:\n${worker.output()}`)), 540_000);
  });
  try {
    return await Promise.race([running.done, hung]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-cli-eval-"));
  await resetDatabase();
  server = await startApiServer();
  const member = await signUp("member");
  token = (await (await callerFor(member.headers)).tokens.create({ name: "cli" })).token;
  node = await startEmbeddedNode();
  await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
  worker = startWorkerProcess(databaseUrl);
});
afterAll(async () => {
  cli.killAll();
  await worker?.kill("SIGKILL");
  await node?.kill("SIGKILL");
  await server?.close();
  const { getBoss } = await import("../server/lib/queue");
  await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
});

describe("envace runs evaluate", () => {
  it("trains two steps, then evaluates the latest checkpoint on BFCL multi-turn in two passes, following it to success", { timeout: 600_000 }, async () => {
    const trained = await toTheEnd(
      cli.start(["runs", "create", "--preset", "quickstart", ...small, "--set", "schedule.steps=2", "--set", "schedule.saveEvery=2", "--set", "schedule.evalEvery=100", "--name", "tiny-trained", "--watch"], env()),
    );
    expect(trained.code, `${trained.stdout}\n${trained.stderr}\n${worker.output()}`).toBe(0);
    const checkpoint = await prisma.checkpoint.findFirstOrThrow({ where: { run: { name: "tiny-trained" } }, select: { step: true, samplerPath: true } });
    expect(checkpoint.step).toBe(2);

    const evaluated = await toTheEnd(
      cli.start(["runs", "evaluate", "tiny-trained", "--step", "latest", "--dataset", "bfcl:multi_turn_base", "--set", "data.instanceIds=multi_turn_base_0", "--repeats", "2", "--watch"], env()),
    );
    expect(evaluated.code, `${evaluated.stdout}\n${evaluated.stderr}\n${worker.output()}`).toBe(0);
    expect(evaluated.stdout).toMatch(/Created run [0-9a-f-]{36} "tiny-trained step latest on bfcl:multi_turn_base": the checkpoint of run "tiny-trained" at step 2 on bfcl:multi_turn_base, 2 passes/);
    expect(evaluated.stdout).toContain("run succeeded");
    // Its progress counts the episodes of both passes.
    expect(evaluated.stdout).toMatch(/2\/2 episodes/);

    const run = await prisma.run.findFirstOrThrow({ where: { kind: "eval" }, select: { id: true, config: true, evaluatedCheckpoint: { select: { step: true } } } });
    expect(run.evaluatedCheckpoint).toEqual({ step: 2 });
    expect((run.config as { policy: { checkpoint: { step: number } } }).policy.checkpoint.step).toBe(2);
    expect((await prisma.step.findMany({ where: { runId: run.id }, orderBy: { index: "asc" }, select: { index: true } })).map((s) => s.index)).toEqual([1, 2]);
    const trajectories = await prisma.trajectory.findMany({ where: { runId: run.id, phase: "eval" }, select: { step: true, instanceId: true } });
    expect(trajectories.map((t) => `${t.step}:${t.instanceId}`).sort()).toEqual(["1:multi_turn_base_0", "2:multi_turn_base_0"]);
    const logs = (await prisma.runLog.findMany({ where: { runId: run.id }, select: { message: true } })).map((l) => l.message);
    expect(logs.some((m) => /^sampling the checkpoint of run "tiny-trained" at step 2: node "embedded" sampling session \S+ samples /.test(m) && m.endsWith(checkpoint.samplerPath)), logs.join("\n")).toBe(true);
  });

  it("fails with the field named when the checkpoint does not exist, and when no training run has the name", async () => {
    const noStep = await cli.run(["runs", "evaluate", "tiny-trained", "--step", "7", "--dataset", "builtin:shop"], env());
    expect(noStep.code).toBe(1);
    expect(noStep.stderr).toContain('config.policy.checkpoint.step: run "tiny-trained" has no checkpoint at step 7 (it has checkpoints at steps 2)');
    const noRun = await cli.run(["runs", "evaluate", "nobody", "--dataset", "builtin:shop"], env());
    expect(noRun.code).toBe(1);
    expect(noRun.stderr).toContain('no training run named "nobody"');
    const badStep = await cli.run(["runs", "evaluate", "tiny-trained", "--step", "two", "--dataset", "builtin:shop"], env());
    expect(badStep.code).toBe(1);
    expect(badStep.stderr).toContain('--step two: a step number (1, 2, …) or "latest"');
  });
});
