/**
 * The `envace` CLI as a child process (`node bin/envace.mjs`, as `npx envace` runs it) against a real
 * HTTP server serving the app's REST and live-event routes (test/api-server.ts) and real Postgres.
 * `runs watch` is driven by real change signals: the test writes run progress the way the worker does
 * (the triggers notify, /api/events fans out), and the CLI must follow it and exit with the outcome.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type ApiServer } from "../test/api-server";
import { cliRunner } from "../test/cli";
import { cm2Jsonl, cm2Row } from "../test/fixtures/cm2";
import { seedRunRows } from "../test/fixtures/run-rows";
import { callerFor, prisma, resetDatabase, signUp } from "../test/helpers";
import { registerCheckedNode } from "../test/fixtures/doctor-report";
import { syntheticStep } from "../bench/persist";
import { persistStep } from "../worker/runner/persist";

let server: ApiServer;
let configDir: string;
let memberToken: string;
let viewerToken: string;
let memberId: string;

const cli = cliRunner(() => configDir);
const { start, waitFor } = cli;
const envace = cli.run;
/** As the viewer, without touching the stored (member) login. */
const asViewer = (args: string[]) => envace(args, { env: { ENVACE_URL: server.url, ENVACE_TOKEN: viewerToken } });

beforeAll(async () => {
  await resetDatabase();
  server = await startApiServer();
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-cli-"));
  const member = await signUp("member");
  const viewer = await signUp("viewer");
  memberId = member.id;
  memberToken = (await (await callerFor(member.headers)).tokens.create({ name: "cli" })).token;
  viewerToken = (await (await callerFor(viewer.headers)).tokens.create({ name: "cli" })).token;
  await registerCheckedNode(prisma); // the embedded node the presets name
});

afterAll(async () => {
  cli.killAll();
  await server?.close();
  fs.rmSync(configDir, { recursive: true, force: true });
});

describe("login", () => {
  it("refuses an unknown token with the API's answer and stores nothing", async () => {
    const res = await envace(["login", "--url", server.url], { stdin: "envace_unknown\n" });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("error: sign in or send an API token (HTTP 401 UNAUTHORIZED)");
    expect(fs.existsSync(path.join(configDir, "credentials.json"))).toBe(false);
  });

  it("checks a token read from stdin and stores it with mode 0600", async () => {
    const res = await envace(["login", "--url", server.url], { stdin: `${memberToken}\n` });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as u-[0-9a-f]+@example\.test \(member\)\. Token stored in .*credentials\.json \(mode 600\)\.\n$/);
    const file = path.join(configDir, "credentials.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ url: server.url, token: memberToken, role: "member" });
  });

  it("says how to log in when there is no login", async () => {
    const res = await envace(["runs", "list"], { env: { ENVACE_CONFIG_DIR: path.join(configDir, "none") } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("not logged in: run `envace login --url <server>`");
  });
});

describe("runs", () => {
  let runId: string;

  it("create --preset with --set overrides launches a run", async () => {
    const res = await envace(["runs", "create", "--preset", "quickstart", "--set", "schedule.steps=3", "--set", "data.instancesPerStep=2", "--name", "cli run", "--tag", "cli"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    runId = /Created run ([0-9a-f-]{36}) "cli run" \(queued, 3 steps\)/.exec(res.stdout)![1]!;
    const row = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { config: true, tags: true, totalSteps: true } });
    expect(row.tags).toEqual(["cli"]);
    expect((row.config as { data: { instancesPerStep: number; poolSize: number } }).data).toMatchObject({ instancesPerStep: 2, poolSize: 8 });
  });

  it("create --config FILE sends the file's settings", async () => {
    const file = path.join(configDir, "eval-run.json");
    fs.writeFileSync(file, JSON.stringify({ kind: "eval", data: { instancesPerStep: 3 } }));
    const res = await envace(["--json", "runs", "create", "--config", file]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ name: "eval-run", kind: "eval", status: "queued", totalSteps: 1 });
  });

  it("prints each invalid field's path and message from the API and exits 1", async () => {
    const res = await envace(["runs", "create", "--preset", "quickstart", "--set", "data.instancesPerStep=0", "--set", "optim.lr=-1"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("(HTTP 400 BAD_REQUEST)");
    expect(res.stderr).toContain("  config.data.instancesPerStep: Number must be greater than or equal to 1\n");
    expect(res.stderr).toContain("  config.optim.lr: Number must be greater than 0\n");
    expect(res.stdout).toBe("");
  });

  it("--set takes a comma list (or JSON) for a list setting", async () => {
    const file = path.join(configDir, "picked.json");
    fs.writeFileSync(file, JSON.stringify({ kind: "eval" }));
    const res = await envace(["runs", "create", "--config", file, "--set", "data.instanceIds=shop-1,shop-2,shop-3"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const id = /Created run ([0-9a-f-]{36}) "picked" \(queued, evaluation\)/.exec(res.stdout)![1]!;
    const row = await prisma.run.findUniqueOrThrow({ where: { id }, select: { config: true } });
    expect((row.config as { data: { instanceIds: string[] } }).data.instanceIds).toEqual(["shop-1", "shop-2", "shop-3"]);
    const json = await envace(["--json", "runs", "create", "--config", file, "--set", 'data.instanceIds=["shop-4"]', "--dry-run"]);
    expect(JSON.parse(json.stdout)).toEqual({ kind: "eval", data: { instanceIds: ["shop-4"] } });
  });

  it("prints each field the launch check refuses, with its reason, and exits 1", async () => {
    const before = await prisma.run.count();
    const file = path.join(configDir, "refused.json");
    fs.writeFileSync(file, JSON.stringify({ kind: "eval", schedule: { evalEvry: 2 } }));
    const unknown = await envace(["runs", "create", "--config", file]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("(HTTP 400 BAD_REQUEST)");
    expect(unknown.stderr).toContain("  config.schedule.evalEvry: unknown setting (did you mean schedule.evalEvery?)\n");
    const refused = await envace(["runs", "create", "--preset", "quickstart", "--set", "policy.node=gpu-9", "--set", 'reward.judge={"node":"ghost","model":"m"}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cannot launch: policy.node: node "gpu-9" (policy) is not registered; add it on the Nodes page (and 1 more) (HTTP 400 BAD_REQUEST)');
    expect(refused.stderr).toContain('  config.policy.node: node "gpu-9" (policy) is not registered; add it on the Nodes page\n');
    expect(refused.stderr).toContain('  config.reward.judge.node: node "ghost" (judge) is not registered; add it on the Nodes page\n');
    expect(refused.stdout).toBe("");
    expect(await prisma.run.count()).toBe(before);
  });

  it("refuses bad arguments before sending anything", async () => {
    const before = await prisma.run.count();
    for (const [args, message] of [
      [["runs", "create", "--preset", "quickstart", "--set", "optim.lrr=1"], "no such run setting (did you mean optim.lr?)"],
      [["runs", "create"], "give --config FILE or --preset NAME"],
      [["runs", "create", "--preset", "nope"], "argument 'nope' is invalid. Allowed choices are quickstart"],
      [["runs", "create", "--config", "/nonexistent.json"], "cannot read config file /nonexistent.json: ENOENT"],
    ] as const) {
      const res = await envace([...args]);
      expect(res.code, args.join(" ")).toBe(1);
      expect(res.stderr).toContain(message);
    }
    expect(await prisma.run.count()).toBe(before);
  });

  it("a viewer's token may list but not launch (HTTP 403)", async () => {
    const res = await asViewer(["runs", "create", "--preset", "quickstart"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("error: viewers have read-only access (HTTP 403 FORBIDDEN)");
    const list = await asViewer(["runs", "list", "--status", "queued"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(runId);
    expect(list.stdout).toMatch(new RegExp(`${runId}  queued\\s+train\\s+0/3  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  cli run`));
  });

  it("runs list --json and a status filter", async () => {
    const res = await envace(["--json", "runs", "list", "--status", "succeeded"]);
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as { id: string }[]).some((r) => r.id === runId)).toBe(false);
  });

  it("runs watch follows live progress to success and exits 0", async () => {
    const watch = start(["runs", "watch", runId]);
    // The worker claims the run and commits steps; each change notifies /api/events.
    await waitFor(watch, (o) => o.includes("0/3 steps"), "the first view");
    await prisma.run.update({ where: { id: runId }, data: { status: "running", startedAt: new Date() } });
    await waitFor(watch, (o) => o.includes("running"), "running");
    await prisma.run.update({ where: { id: runId }, data: { progressStep: 1, etaSeconds: 125, latestMetrics: { "reward/mean": 0.25, "fidelity/mean": 0.5 } } });
    await waitFor(watch, (o) => o.includes("1/3 steps"), "step 1");
    await prisma.run.update({ where: { id: runId }, data: { progressStep: 3, etaSeconds: 0, latestMetrics: { "reward/mean": 0.75, "fidelity/mean": 0.9 } } });
    await prisma.run.update({ where: { id: runId }, data: { status: "succeeded", finishedAt: new Date() } });
    const res = await watch.done;
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines[0]).toBe(`cli run (${runId}) — train, rehearse paradigm, node embedded`);
    expect(lines).toContain("[########----------------]  1/3 steps   33%  ETA 2m 05s  running  reward/mean 0.25 · fidelity/mean 0.5");
    expect(lines).toContain("[########################]  3/3 steps  100%  ETA —  succeeded  reward/mean 0.75 · fidelity/mean 0.9");
    expect(lines.at(-1)).toBe("run succeeded");
  });

  it("runs watch exits 2 when the run fails, with the run's error", async () => {
    const failing = await envace(["--json", "runs", "create", "--preset", "quickstart", "--name", "fails"]);
    const id = (JSON.parse(failing.stdout) as { id: string }).id;
    const watch = start(["runs", "watch", id]);
    await waitFor(watch, (o) => o.includes("queued"), "the first view");
    await prisma.run.update({ where: { id }, data: { status: "failed", error: "node embedded unreachable", finishedAt: new Date() } });
    const res = await watch.done;
    expect(res.code).toBe(2);
    expect(res.stdout.trim().split("\n").at(-1)).toBe("run failed: node embedded unreachable");
  });

  it("runs cancel cancels a queued run; a watcher exits 3", async () => {
    const watch = start(["--json", "runs", "watch", runId]);
    // runId already succeeded: watch prints its state and exits at once with 0.
    expect((await watch.done).code).toBe(0);

    const created = await envace(["--json", "runs", "create", "--preset", "quickstart", "--name", "to cancel"]);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const watcher = start(["--json", "runs", "watch", id]);
    await waitFor(watcher, (o) => o.includes('"status":"queued"'), "the first view");
    const cancel = await envace(["runs", "cancel", id]);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toBe(`Run ${id} cancelled.\n`);
    const res = await watcher.done;
    expect(res.code).toBe(3);
    expect(JSON.parse(res.stdout.trim().split("\n").at(-1)!)).toMatchObject({ id, status: "cancelled" });
    const again = await envace(["runs", "cancel", id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already finished (cancelled); nothing to cancel (HTTP 409 CONFLICT)");
    const unknown = await envace(["runs", "watch", "not-a-uuid"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("  id: run id must be a UUID");
  });
});

describe("datasets", () => {
  it("imports a file, named after it; lists it", async () => {
    const file = path.join(configDir, "weather.jsonl");
    fs.writeFileSync(file, cm2Jsonl(3));
    const res = await envace(["datasets", "import", file, "--split", "test"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Imported 3 instance\(s\) into dataset "weather" \([0-9a-f-]{36}\); use data\.dataset=dataset:weather\.\n$/);
    const list = await envace(["datasets", "list"]);
    expect(list.stdout).toMatch(/ weather {2}cm2 {2}3 instances /);
  });

  it("names each invalid line and exits 1, importing nothing", async () => {
    const file = path.join(configDir, "broken.jsonl");
    fs.writeFileSync(file, [JSON.stringify(cm2Row(1)), "{not json", JSON.stringify({ ...cm2Row(3), messages: [] })].join("\n"));
    const res = await envace(["datasets", "import", file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: 2 invalid rows; nothing was imported\./);
    expect(res.stderr).toMatch(/\n {2}line 2: /);
    expect(res.stderr).toMatch(/\n {2}line 3: /);
    expect(await prisma.dataset.count({ where: { name: "broken" } })).toBe(0);
  });
});

describe("datasets: task lists (instructions plus checklist items, for MCP servers)", () => {
  const task = (id: string) => ({ id, instruction: `Remember ${id}.`, checklist: ["Did it remember?", { question: "Stored it", check: { type: "tool_called", name: "create_entities" } }] });

  it("imports a task list, recognised by its first row, and says how a run uses it", async () => {
    const file = path.join(configDir, "memory tasks.jsonl");
    fs.writeFileSync(file, [task("ada"), task("bob")].map((t) => JSON.stringify(t)).join("\n") + "\n");
    const res = await envace(["datasets", "import", file]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /^Imported 2 task\(s\) into dataset "memory-tasks" \([0-9a-f-]{36}\); run them against an MCP server with data\.dataset=mcp:<server>\/memory-tasks \(`envace mcp list`\)\.\n$/,
    );
    expect((await envace(["datasets", "list"])).stdout).toMatch(/ memory-tasks {2}tasks {2}2 instances /);
    const rows = await prisma.instance.findMany({ where: { dataset: { name: "memory-tasks" } }, orderBy: { externalId: "asc" }, select: { externalId: true } });
    expect(rows.map((r) => r.externalId)).toEqual(["task-ada", "task-bob"]);
  });

  it("--format tasks reads the file as a task list and names each bad line and field; nothing is imported", async () => {
    const file = path.join(configDir, "bad-tasks.jsonl");
    fs.writeFileSync(file, [JSON.stringify(task("ok")), JSON.stringify({ id: "no-list", instruction: "Remember." }), JSON.stringify({ id: "typo", instruction: "x", checklist: ["y"], setup: [{ tool: "read_graph" }] })].join("\n"));
    const res = await envace(["datasets", "import", file, "--format", "tasks"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: 2 invalid rows; nothing was imported\./);
    expect(res.stderr).toMatch(/\n {2}line 2: checklist: checklist is required with an instruction/);
    expect(res.stderr).toMatch(/\n {2}line 3: setup\.0/);
    // A CM2 file read as a task list is refused row by row, not imported as something else.
    const cm2 = path.join(configDir, "cm2-as-tasks.jsonl");
    fs.writeFileSync(cm2, cm2Jsonl(1));
    const wrong = await envace(["datasets", "import", cm2, "--format", "tasks"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/\n {2}line 1: /);
    expect(await prisma.dataset.count({ where: { name: { in: ["bad-tasks", "cm2-as-tasks"] } } })).toBe(0);
  });
});

describe("reports", () => {
  it("exports a report in each format to stdout or a file", async () => {
    const run = await seedRunRows(prisma, {
      name: "CLI report run",
      createdById: memberId,
      trajectories: [
        { phase: "eval", step: 1, instanceId: "t1", dataSource: "shop", outcome: "success" },
        { phase: "eval", step: 1, instanceId: "t2", dataSource: "shop", outcome: "failure" },
      ],
    });
    const { id } = await (await callerFor(new Headers({ authorization: `Bearer ${memberToken}` }))).reports.create({ title: "CLI paper", body: "| a | b |\n|---|---|\n| 1 | 2 |\n\n$E=mc^2$", runIds: [run] });
    const md = await envace(["reports", "export", id, "--format", "md"]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("# CLI paper\n");
    expect(md.stdout).toContain("| CLI report run | 50.00 | 50.00 | 50.00 | 50.00 |");
    expect(md.stdout).toContain("$E=mc^2$");
    const out = path.join(configDir, "paper.tex");
    const tex = await envace(["reports", "export", id, "--format", "latex", "-o", out]);
    expect(tex.code).toBe(0);
    expect(fs.readFileSync(out, "utf8")).toContain("\\caption{CLI paper}");
    const csv = await asViewer(["reports", "export", id, "--format", "csv"]);
    expect(csv.stdout).toContain("CLI report run,shop,1,2,50.00,50.00");
    const json = await envace(["reports", "export", id, "--format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ format: "envace-report/v1", title: "CLI paper" });
    const bad = await envace(["reports", "export", id, "--format", "docx"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("argument 'docx' is invalid");
    const missing = await envace(["reports", "export", "00000000-0000-4000-8000-000000000000", "--format", "md"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("(HTTP 404 NOT_FOUND)");
  });
});

describe("runs archive, restore, retention and delete", () => {
  it("archives a finished run's turns, restores them, sets its retention and deletes it, through the REST API", async () => {
    const archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-cli-archive-"));
    const previous = process.env.ENVACE_ARCHIVE_DIR;
    process.env.ENVACE_ARCHIVE_DIR = archiveDir; // the API server runs in this process
    try {
      const run = await prisma.run.create({
        data: { name: "to archive", kind: "train", status: "running", workerId: "w-cli", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 1, createdById: memberId },
      });
      await persistStep(prisma, { runId: run.id, workerId: "w-cli", result: syntheticStep(1, 30, 1, 2), phase: "train", startedAt: new Date() });
      const running = await envace(["runs", "archive", run.id]);
      expect(running.code).toBe(1);
      expect(running.stderr).toContain("only a finished run can be archived (HTTP 409 CONFLICT)");
      await prisma.run.update({ where: { id: run.id }, data: { status: "succeeded", finishedAt: new Date(), workerId: null } });

      const archived = await envace(["runs", "archive", run.id]);
      expect(archived.code).toBe(0);
      expect(archived.stdout).toMatch(new RegExp(`^Archived 30 turns of run ${run.id}: [0-9.]+ MB at ${archiveDir}/${run.id}/turns.jsonl.gz \\(sha256 [0-9a-f]{64}\\)\\.\\n$`));
      expect(await prisma.turn.count({ where: { runId: run.id } })).toBe(0);
      const restored = await envace(["--json", "runs", "restore", run.id]);
      expect(JSON.parse(restored.stdout)).toEqual({ runId: run.id, turns: 30 });
      expect(await prisma.turn.count({ where: { runId: run.id } })).toBe(30);

      expect((await envace(["runs", "retention", run.id, "7"])).stdout).toBe(`Run ${run.id}'s turns are archived 7 days after it finished.\n`);
      expect((await envace(["runs", "retention", run.id, "off"])).stdout).toBe(`Run ${run.id} keeps its turns.\n`);
      const bad = await envace(["runs", "retention", run.id, "1.5"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('days must be a whole number of days (0 or more) or "off", got 1.5');
      expect((await asViewer(["runs", "delete", run.id])).code).toBe(1);

      const deleted = await envace(["runs", "delete", run.id]);
      expect(deleted.stdout).toBe(`Run ${run.id} deleted.\n`);
      expect(await prisma.run.findUnique({ where: { id: run.id } })).toBeNull();
      expect(await prisma.turn.count({ where: { runId: run.id } })).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.ENVACE_ARCHIVE_DIR;
      else process.env.ENVACE_ARCHIVE_DIR = previous;
      fs.rmSync(archiveDir, { recursive: true, force: true });
    }
  });
});
