/**
 * `tau2:oracle`'s replays reproduce gold-replay.train.json — recorded by running the original v0.2.0 Python —
 * for EVERY train task of airline and telecom: per gold call the error flag and the exact tool text (its
 * sha256, and the text itself where the file keeps it), the DB hashes after the initial state and at the end,
 * and for telecom the synced replay (get_response: call, then sync_tools) and the env assertions on it.
 * Tasks run in file order in one runtime, as the recording did (one Python process).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { domainGoldFile, domainSource, domainTestData } from "../../../../test/fixtures/tau2-domains";
import { replayGold, replaySynced } from "../harness/replay";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

describe.each(["airline", "telecom"] as const)("gold replay of every %s train task matches tau2-bench v0.2.0", (domain) => {
  it("the untouched DBs hash like the original's", () => {
    const gold = domainGoldFile(domain);
    const env = domainSource(domain).newEnv();
    expect(env.dbHash()).toBe(gold.initial_db_hash);
    if (domain === "telecom") expect(env.userDbHash()).toBe(gold.initial_user_db_hash);
    else expect(env.userDbHash()).toBeNull();
  });

  it("every task: per-call error flag and text, initial and final hashes (and telecom's synced replay and env assertions)", () => {
    const { tasks } = domainTestData(domain);
    const gold = domainGoldFile(domain);
    const byId = new Map(gold.tasks.map((t) => [t.task_id, t]));
    expect(tasks.length).toBe(domain === "airline" ? 30 : 74);
    expect(new Set(tasks.map((t) => t.id))).toEqual(new Set(byId.keys()));
    const source = domainSource(domain);
    const mismatches: string[] = [];
    const check = (what: string, got: unknown, want: unknown) => {
      if (got !== want) mismatches.push(`${what}: got ${JSON.stringify(got)?.slice(0, 300)}, want ${JSON.stringify(want)?.slice(0, 300)}`);
    };
    for (const task of tasks) {
      const want = byId.get(task.id)!;
      const replay = replayGold(source, task);
      check(`${task.id} calls`, replay.results.length, want.actions.length);
      replay.results.forEach((r, i) => {
        const w = want.actions[i]!;
        check(`${task.id} #${i} name`, r.name, w.name);
        check(`${task.id} #${i} (${w.name}) error`, r.error, w.error);
        if (w.content !== undefined) check(`${task.id} #${i} (${w.name}) content`, r.content, w.content);
        // Python len(): code points.
        check(`${task.id} #${i} (${w.name}) length`, [...r.content].length, w.content_length);
        check(`${task.id} #${i} (${w.name}) sha256`, sha256(r.content), w.content_sha256);
      });
      check(`${task.id} errors`, replay.errors, want.actions.filter((a) => a.error).length);
      check(`${task.id} final db`, replay.db_hash, want.final_db_hash);
      check(`${task.id} unchanged`, replay.db_hash === (want.initial_db_hash ?? gold.initial_db_hash) && replay.user_db_hash === (want.initial_user_db_hash ?? null), want.db_unchanged);
      if (domain === "telecom") {
        check(`${task.id} initial db`, replay.initial_db_hash, want.initial_db_hash);
        check(`${task.id} initial user db`, replay.initial_user_db_hash, want.initial_user_db_hash);
        check(`${task.id} final user db`, replay.user_db_hash, want.final_user_db_hash);
        const synced = replaySynced(source, task);
        synced.results.forEach((r, i) => {
          const w = want.synced!.actions[i]!;
          check(`${task.id} synced #${i} error`, r.error, w.error);
          if (w.content !== undefined) check(`${task.id} synced #${i} content`, r.content, w.content);
          check(`${task.id} synced #${i} sha256`, sha256(r.content), w.content_sha256);
        });
        check(`${task.id} synced db`, synced.db_hash, want.synced!.final_db_hash);
        check(`${task.id} synced user db`, synced.user_db_hash, want.synced!.final_user_db_hash);
        check(`${task.id} env assertions`, JSON.stringify(synced.env_assertions), JSON.stringify(want.env_assertions));
      } else {
        check(`${task.id} initial db`, replay.initial_db_hash, gold.initial_db_hash);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
