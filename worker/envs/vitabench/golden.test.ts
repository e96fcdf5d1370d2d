/**
 * Every tool call of test/fixtures/vitabench/*.cases.jsonl against the goldens upstream's own code produced on the
 * same cases (scripts/vitabench/oracle.py over meituan-longcat/vitabench @ 96f3b85): content, error flag and the
 * hash of the state after the call.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCallsCase } from "./cli/calls";
import { dataDir as sharedDataDir } from "../../../lib/tau2/tasks";

const fixture = (name: string) => new URL(`../../../test/fixtures/vitabench/${name}`, import.meta.url);
const lines = (name: string) => readFileSync(fixture(name), "utf8").split("\n").filter((l) => l.trim());
const dataDir = sharedDataDir();
const shared = existsSync(`${dataDir}/vitabench/delivery/tasks.json`);

function compare(casesFile: string, goldenFile: string) {
  const golden = lines(goldenFile).map((l) => JSON.parse(l) as { case: string; index: number; content: string; error: boolean; state_hash: string });
  // "@fixtures/" in a case's task_file stands for this fixtures folder (synthetic task files live there).
  const dir = fixture("").pathname;
  const got = lines(casesFile).flatMap((c) => runCallsCase(c.replaceAll("@fixtures/", dir)).map((l) => JSON.parse(l) as (typeof golden)[number]));
  expect(got.length).toBe(golden.length);
  for (let i = 0; i < golden.length; i++) {
    const g = golden[i]!;
    expect({ at: `${g.case}#${g.index}`, content: got[i]!.content, error: got[i]!.error }).toEqual({ at: `${g.case}#${g.index}`, content: g.content, error: g.error });
    expect(got[i]!.state_hash, `${g.case}#${g.index} state`).toBe(g.state_hash);
  }
}

describe("VitaBench tools reproduce upstream", () => {
  it.skipIf(!shared)("delivery (zh, en) and in-store (en) on the shared tasks", () => compare("calls.cases.jsonl", "calls.golden.jsonl"), 120_000);
  it("OTA and cross-domain on a synthetic task in upstream's format", () => compare("ota.cases.jsonl", "ota.golden.jsonl"), 60_000);
});
