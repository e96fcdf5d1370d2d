import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { goldReplayFile, retailTestData } from "../../../../test/fixtures/tau2-retail";

const here = path.dirname(fileURLToPath(import.meta.url));
const run = (script: string, args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", path.join(here, script), ...args], { encoding: "utf8", cwd: path.resolve(here, "../../../..") });
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
