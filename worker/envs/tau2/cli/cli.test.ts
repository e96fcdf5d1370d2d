import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { goldReplayFile, retailTestData } from "../../../../test/fixtures/tau2-retail";
import { runInProcess } from "./args";
import { callsMain } from "./calls";
import { oracleMain } from "./oracle";
import { AIRLINE_BOOKING as BOOKING, AIRLINE_UPSTREAM_TEST_DB as UPSTREAM_TEST_DB, domainGoldFile, domainTestData } from "../../../../test/fixtures/tau2-domains";

const here = path.dirname(fileURLToPath(import.meta.url));
const run = (script: string, args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", path.join(here, script), ...args], { encoding: "utf8", cwd: path.resolve(here, "../../../..") });
// The new domains' cases run the same commands in this process (spawning tsx costs seconds a call); the
// cases above go through the real entry points.
const inProcess = (script: "oracle.ts" | "calls.ts", args: string[]) => runInProcess(script === "oracle.ts" ? oracleMain : callsMain, args);
const tmp = mkdtempSync(path.join(tmpdir(), "tau2-cli-"));
const write = (name: string, value: unknown) => {
  const file = path.join(tmp, name);
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
};

describe("tau2:oracle", () => {
  it("prints one line per task with the gold error count and hash, then the summary", () => {
    const { files } = retailTestData();
    const out = run("oracle.ts", ["--tasks", files.tasks, "--db", files.db]);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split("\n");
    expect(lines.at(-1)).toBe("replayed 74/74 tasks");
    const gold = new Map(goldReplayFile().tasks.map((t) => [t.task_id, t]));
    for (const line of lines.slice(0, -1)) {
      const row = JSON.parse(line) as { task_id: string; errors: number; db_hash: string };
      const want = gold.get(row.task_id)!;
      expect(row).toEqual({ task_id: row.task_id, errors: want.actions.filter((a) => a.error).length, db_hash: want.final_db_hash });
    }
  });

  it("rejects a malformed task naming its position and id", () => {
    const { tasks } = retailTestData();
    const bad = [tasks[0], { ...tasks[1], evaluation_criteria: { actions: [{ action_id: "x", name: 5, arguments: {} }] } }];
    const out = run("oracle.ts", ["--tasks", write("bad-tasks.json", bad)]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain(`task #1 (id "${tasks[1].id}") is invalid: evaluation_criteria.actions.0.name`);
  });
});

describe("tau2:calls", () => {
  it("runs calls in order, prints exact texts and the hash, and the dump round-trips", () => {
    const { files } = retailTestData();
    const calls = [
      { tool: "find_user_id_by_email", arguments: { email: "nobody@example.com" } },
      { tool: "modify_user_address", arguments: { user_id: "yusuf_rossi_9620", address1: "1 Elm", address2: "", city: "Philadelphia", state: "PA", country: "USA", zip: "19122" } },
      { tool: "calculate", arguments: { expression: "1/3" } },
      { tool: "list_all_product_types" },
    ];
    const dump = path.join(tmp, "dump.json");
    const out = run("calls.ts", ["--db", files.db, "--calls", write("calls.json", calls), "--dump", dump]);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ tool: "find_user_id_by_email", error: true, content: "Error: User not found" });
    expect(lines[1].content).toContain('"address": {"address1": "1 Elm", "address2": "", "city": "Philadelphia", "country": "USA", "state": "PA", "zip": "19122"}');
    expect(lines[2]).toEqual({ tool: "calculate", error: false, content: "0.33" });
    expect(lines[3].content.startsWith('{"Action Camera": "3377618313"')).toBe(true);
    const { db_hash } = lines[4];
    expect(db_hash).not.toBe(goldReplayFile().initial_db_hash);

    const again = run("calls.ts", ["--db", dump, "--calls", write("none.json", [])]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.trim())).toEqual({ db_hash });
    expect(readFileSync(dump, "utf8").startsWith('{\n    "products": {')).toBe(true);
  });

  it("rejects a malformed calls file naming the position", () => {
    const { files } = retailTestData();
    const out = run("calls.ts", ["--db", files.db, "--calls", write("bad-calls.json", [{ tool: "calculate", arguments: { expression: "1" } }, { name: "calculate" }])]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/call #1 is invalid/);
  });
});

describe("tau2:oracle --domain airline|telecom", () => {
  it.each(["airline", "telecom"] as const)("%s: one line per task reproducing gold-replay.train.json, in file order", (domain) => {
    const { files, tasks } = domainTestData(domain);
    const out = inProcess("oracle.ts", ["--domain", domain, "--tasks", files.tasks]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr.trim()).toBe(`replayed ${tasks.length}/${tasks.length} ${domain} tasks`);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.task_id)).toEqual(tasks.map((t) => t.id));
    const gold = new Map(domainGoldFile(domain).tasks.map((t) => [t.task_id, t]));
    for (const line of lines) {
      const want = gold.get(line.task_id)!;
      const expected: Record<string, unknown> = {
        task_id: line.task_id,
        errors: want.actions.filter((a) => a.error).length,
        db_hash: want.final_db_hash,
        content_sha256: want.actions.map((a) => a.content_sha256),
      };
      if (domain === "telecom") {
        Object.assign(expected, {
          initial_db_hash: want.initial_db_hash,
          initial_user_db_hash: want.initial_user_db_hash,
          user_db_hash: want.final_user_db_hash,
          env_assertions: want.env_assertions,
          synced: { errors: 0, db_hash: want.synced!.final_db_hash, user_db_hash: want.synced!.final_user_db_hash, content_sha256: want.synced!.actions.map((a) => a.content_sha256) },
        });
      }
      expect(line).toEqual(expected);
    }
  });

  it("refuses a task naming a tool the domain lacks, with the file, task and path", () => {
    const { tasks } = domainTestData("airline");
    const bad = [tasks[0], { ...tasks[1], evaluation_criteria: { ...tasks[1]!.evaluation_criteria, actions: [{ action_id: "x", name: "teleport", arguments: {} }] } }];
    const file = write("bad-airline-tasks.json", bad);
    const out = inProcess("oracle.ts", ["--domain", "airline", "--tasks", file]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain(`${file}: task #1 (id "${tasks[1]!.id}") evaluation_criteria.actions.0.name: no agent tool "teleport" in the airline domain`);
    expect(inProcess("oracle.ts", ["--domain", "banking", "--tasks", file]).stderr).toContain("--domain must be one of retail, airline, telecom");
  });
});

describe("tau2:calls --domain airline|telecom", () => {
  it("airline: upstream's test calls on its test DB, a line per call with the hash after it; the dump reloads", () => {
    const calls = [
      { tool: "book_reservation", arguments: BOOKING },
      { tool: "book_reservation", arguments: { ...BOOKING, payment_methods: [{ payment_id: "credit_card_4421486", amount: 121 }] } },
      { tool: "cancel_reservation", arguments: { reservation_id: "4WQ150" } },
    ];
    const dump = path.join(tmp, "airline-dump.json");
    const out = inProcess("calls.ts", ["--domain", "airline", "--db", UPSTREAM_TEST_DB, "--calls", write("airline-calls.json", calls), "--dump", dump]);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.tool, l.error])).toEqual([["book_reservation", false], ["book_reservation", true], ["cancel_reservation", false], [undefined, undefined]]);
    expect(lines[1].content).toBe("Error: Payment amount does not add up, total price is 122, but paid 121");
    expect(lines[1].db_hash).toBe(lines[0].db_hash);
    expect(lines[2].db_hash).not.toBe(lines[1].db_hash);
    expect(lines[3]).toEqual({ db_hash: lines[2].db_hash });
    const again = inProcess("calls.ts", ["--domain", "airline", "--db", dump, "--calls", write("none.json", [])]);
    expect(JSON.parse(again.stdout.trim())).toEqual({ db_hash: lines[3].db_hash });
  });

  it("telecom: a task's initial state, the user's calls on its phone, one process's VPN, and both dumps", () => {
    const { files } = domainTestData("telecom");
    const taskId = "[mobile_data_issue]bad_vpn|data_saver_mode_on|user_abroad_roaming_disabled_on[PERSONA:None]";
    const calls = [
      { tool: "check_vpn_status", requestor: "user" },
      { tool: "disconnect_vpn", requestor: "user" },
      { tool: "connect_vpn", requestor: "user" },
      { tool: "check_vpn_status", requestor: "user" },
      { tool: "get_data_usage", arguments: { customer_id: "C1001", line_id: "L1002" } },
      { tool: "toggle_data", requestor: "assistant" },
    ];
    const dump = path.join(tmp, "telecom-dump.json");
    const dumpUser = path.join(tmp, "telecom-user-dump.json");
    const out = inProcess("calls.ts", ["--domain", "telecom", "--db", files.db, "--tasks", files.tasks, "--task-id", taskId, "--calls", write("telecom-calls.json", calls), "--dump", dump, "--dump-user", dumpUser]);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const poor = "VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.POOR: 'poor'>}";
    expect(lines[0]).toMatchObject({ tool: "check_vpn_status", error: false, content: poor });
    expect(lines[1].content).toMatch(/^VPN disconnected successfully\.\nStatus Bar: /);
    // break_vpn (the task's initialisation) degraded the one default VPN of this process: reconnecting gets it again.
    expect(lines[3]).toMatchObject({ content: poor });
    expect(lines[4].content).toMatch(/^\{"line_id": "L1002", "data_used_gb": "\d+\.\d+", /);
    expect(lines[5]).toMatchObject({ error: true, content: "Error: Tool 'toggle_data' not found." });
    for (const l of lines.slice(0, -1)) expect(Object.keys(l)).toEqual(["tool", "error", "content", "db_hash", "user_db_hash"]);
    const final = lines.at(-1);
    const again = inProcess("calls.ts", ["--domain", "telecom", "--db", dump, "--user-db", dumpUser, "--calls", write("none2.json", [])]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.trim())).toEqual(final);
  });

  it("bad input: --tasks without --task-id, an unknown task id, a malformed DB named by file and path", () => {
    const { files } = domainTestData("telecom");
    const none = write("none3.json", []);
    expect(inProcess("calls.ts", ["--domain", "telecom", "--db", files.db, "--tasks", files.tasks, "--calls", none]).stderr).toContain("--tasks and --task-id go together");
    expect(inProcess("calls.ts", ["--domain", "telecom", "--db", files.db, "--tasks", files.tasks, "--task-id", "nope", "--calls", none]).stderr).toContain('no task with id "nope"');
    const badDb = write("bad-db.json", { plans: [{ plan_id: "P1" }] });
    const out = inProcess("calls.ts", ["--domain", "telecom", "--db", badDb, "--calls", none]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain(`${badDb} is not a valid TelecomDB: plans.0.name: Field required`);
  });
});
