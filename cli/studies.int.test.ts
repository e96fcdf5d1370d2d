/**
 * A study end to end from the command line: `envace studies create --config base.json --grid
 * rollout.paradigm=rehearse,environment --seeds 2 --watch` against a real HTTP server (REST and live
 * events), a real worker and the real embedded node. The four runs train with an evaluation suite; the
 * watch exits 0 when all succeeded; `studies get` shows the per-benchmark table with both seeds of each
 * paradigm, and the charts (GET /studies/{id}/series) give mean ± std with n = 2 per step.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { startApiServer, type ApiServer } from "../test/api-server";
import { cliRunner } from "../test/cli";
import { tinyTraining } from "../test/fixtures/tiny-training";
import { callerFor, prisma, resetDatabase, signUp } from "../test/helpers";
import { startEmbeddedNode, startWorkerProcess, type Child } from "../test/processes";

const databaseUrl = inject("databaseUrl");

let server: ApiServer;
let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
let worker: Child;
let configDir: string;
let baseFile: string;
let token: string;

const cli = cliRunner(() => configDir);
const envace = (args: string[]) => cli.run(args, { env: { ENVACE_URL: server.url, ENVACE_TOKEN: token } });

beforeAll(async () => {
  await resetDatabase();
  server = await startApiServer();
  node = await startEmbeddedNode();
  await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
  worker = startWorkerProcess(databaseUrl);
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-studies-"));
  const member = await signUp("member");
  token = (await (await callerFor(member.headers)).tokens.create({ name: "cli" })).token;
  const base = tinyTraining({ steps: 2, evalEvery: 2 });
  baseFile = path.join(configDir, "base.json");
  fs.writeFileSync(
    baseFile,
    JSON.stringify({ ...base, rollout: { ...base.rollout, shadowExecution: false }, schedule: { ...base.schedule, evalSuites: [{ name: "shop-test", dataset: "builtin:shop", limit: 2 }] } }),
  );
}, 120_000);

afterAll(async () => {
  cli.killAll();
  await worker?.kill("SIGKILL");
  await node?.kill("SIGKILL");
  await server?.close();
  const { getBoss } = await import("../server/lib/queue");
  await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  fs.rmSync(configDir, { recursive: true, force: true });
});

describe("envace studies", () => {
  it("refuses a grid over a setting that does not exist before sending, and names the server's refusal's field", async () => {
    let res = await envace(["studies", "create", "--config", baseFile, "--grid", "rollout.paradigms=rehearse,environment", "--seeds", "2"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe("error: --grid rollout.paradigms: no such run setting (did you mean rollout.paradigm?); `envace runs settings` lists the settings\n");
    res = await envace(["studies", "create", "--config", baseFile, "--grid", "policy.node=embedded,gpu-9", "--seeds", "2"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("(HTTP 400 BAD_REQUEST)");
    expect(res.stderr).toContain('  grid.0.values.1: policy.node: node "gpu-9" (policy) is not registered; add it on the Nodes page');
    expect(await prisma.study.count()).toBe(0);
    // --dry-run shows the request.
    res = await envace(["studies", "create", "--config", baseFile, "--grid", "rollout.paradigm=rehearse,environment", "--grid", "optim.lr=0.001,0.0003", "--seeds", "0,5", "--dry-run"]);
    expect(JSON.parse(res.stdout)).toMatchObject({ name: "base", grid: [{ setting: "rollout.paradigm", values: ["rehearse", "environment"] }, { setting: "optim.lr", values: [0.001, 0.0003] }], seeds: [0, 5] });
  });

  it("launches 2 paradigms × 2 seeds, watches them to the end, and tables each benchmark across seeds", { timeout: 900_000 }, async () => {
    const res = await envace(["studies", "create", "--config", baseFile, "--grid", "rollout.paradigm=rehearse,environment", "--seeds", "2", "--name", "paradigms", "--watch"]);
    expect(res.stderr, worker.output()).toBe("");
    expect(res.code, `${res.stdout}\n${worker.output()}`).toBe(0);
    const id = /Created study ([0-9a-f-]{36}) "paradigms" with 4 runs:/.exec(res.stdout)![1]!;
    expect(res.stdout).toContain("paradigms · paradigm=environment · seed 8");
    expect(res.stdout).toContain("4 of 4 runs finished (4 succeeded)");
    expect(res.stdout).toMatch(/Evaluations \(each run's latest; mean ± std across seeds\):\n {2}builtin:shop\n {4}paradigm=rehearse +success .+ n=2\/2\n/);

    const got = await envace(["studies", "get", id, "--json"]);
    expect(got.code).toBe(0);
    const { study, table } = JSON.parse(got.stdout) as {
      study: { groups: { label: string }[]; runs: { status: string }[] };
      table: { steps: number[]; rows: { label: string; cells: { n: number; reward: { mean: number; std: number; n: number } | null }[] }[] };
    };
    expect(study.groups.map((g) => g.label)).toEqual(["paradigm=rehearse", "paradigm=environment"]);
    expect(study.runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    expect(table.steps).toEqual([2]);
    expect(table.rows.map((r) => r.label)).toEqual(["builtin:shop", "shop-test (builtin:shop)"]);
    for (const row of table.rows) for (const cell of row.cells) expect(cell).toMatchObject({ n: 2, reward: { n: 2, mean: expect.any(Number), std: expect.any(Number) } });
    // The table's numbers are the runs' own: the suite's mean is the mean of the runs' val/shop-test/reward/mean.
    const runs = await prisma.run.findMany({ where: { studyId: id }, select: { id: true, config: true } });
    const rehearsed = runs.filter((r) => (r.config as { rollout: { paradigm: string } }).rollout.paradigm === "rehearse").map((r) => r.id);
    const points = await prisma.metricPoint.findMany({ where: { runId: { in: rehearsed }, key: "val/shop-test/reward/mean", step: 2 }, select: { value: true } });
    expect(points).toHaveLength(2);
    expect(table.rows[1]!.cells[0]!.reward!.mean).toBeCloseTo((points[0]!.value + points[1]!.value) / 2, 9);

    const text = await envace(["studies", "get", id]);
    expect(text.stdout).toContain("  paradigm=environment\n    seed 7");
    expect(text.stdout).toContain("  shop-test (builtin:shop)\n");

    const series = await fetch(`${server.url}/api/v1/studies/${id}/series?keys=reward/mean&keys=val/shop-test/reward/mean`, { headers: { authorization: `Bearer ${token}` } });
    expect(series.status).toBe(200);
    const body = (await series.json()) as { groups: { label: string; series: { key: string; points: { step: number; n: number; std: number }[] }[] }[] };
    for (const group of body.groups) {
      expect(group.series.find((s) => s.key === "reward/mean")!.points.map((p) => [p.step, p.n])).toEqual([[1, 2], [2, 2]]);
      expect(group.series.find((s) => s.key === "val/shop-test/reward/mean")!.points.map((p) => [p.step, p.n])).toEqual([[2, 2]]);
    }
    const listed = await envace(["studies", "list"]);
    expect(listed.stdout).toMatch(new RegExp(`^${id} .* paradigms {2}\\[rollout\\.paradigm×2, 2 seed\\(s\\)\\] {2}4 succeeded\\n`));
  });
});
