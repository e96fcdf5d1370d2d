/**
 * The port against upstream's Python (fixtures from scripts/bfcl/make_goldens.py): ground-truth replays
 * of every multi-turn task (each call's text and each turn's state), the hand-written edge cases, and
 * the checker's verdicts on the ground truth and its perturbations.
 */
import { describe, expect, it } from "vitest";
import { checkMultiTurn } from "./scoring/checker";
import { readCallCases, runCallCases, type CallResultLine } from "./cases";
import { createBfclEnvironment } from "./world";
import { perturbations, type Perturbation } from "../../../test/fixtures/bfcl-perturb";
import { fullTextSha256, stateDigest, textDigest } from "./state";
import { allTasks, FIXTURES, GOLDEN_TODAY_MS, hasBfclData, readFixtureLines } from "../../../test/fixtures/bfcl-data";
import path from "node:path";

const now = () => GOLDEN_TODAY_MS;
const dataPresent = hasBfclData();

interface ReplayLine {
  id: string;
  results: string[][];
  states: string[];
}

describe.skipIf(!dataPresent)("ground-truth replays of the shared multi-turn tasks", () => {
  it("returns upstream's exact text for every call and upstream's state after every turn", () => {
    const expected = new Map(readFixtureLines<ReplayLine>("gt-replay.jsonl").map((l) => [l.id, l]));
    const full = new Map(readFixtureLines<{ id: string; results: string[][] }>("gt-replay-full.jsonl").map((l) => [l.id, l]));
    let calls = 0;
    let tasks = 0;
    const mismatches: string[] = [];
    for (const [, list] of allTasks()) {
      for (const task of list) {
        const want = expected.get(task.id);
        expect(want, `no golden for ${task.id}`).toBeDefined();
        const env = createBfclEnvironment(task, { now });
        task.groundTruth.forEach((turn, t) => {
          const results = env.execute(turn);
          results.forEach((text, i) => {
            calls++;
            const fullText = full.get(task.id)?.results[t][i];
            if (fullText !== undefined && text !== fullText) mismatches.push(`${task.id} turn ${t} call ${i}: ${JSON.stringify(text)} ≠ ${JSON.stringify(fullText)}`);
            if (textDigest(text) !== want!.results[t][i]) mismatches.push(`${task.id} turn ${t} call ${i} (${turn[i]}): ${text.slice(0, 200)}`);
          });
          if (stateDigest(env) !== want!.states[t]) mismatches.push(`${task.id}: state after turn ${t}`);
        });
        tasks++;
      }
    }
    expect(mismatches).toEqual([]);
    expect(tasks).toBe(800);
    expect(calls).toBe(4625);
  }, 600_000);
});

describe("edge cases (errors, randomness, floats, dates, nested arguments, malformed calls)", () => {
  const cases = readCallCases(path.join(FIXTURES, "edge-cases.jsonl"));
  const expected = readFixtureLines<CallResultLine & { result_sha256?: string; result_length?: number; result_head?: string }>("edge-expected.jsonl");
  const byKey = new Map(expected.map((l) => [`${l.id}/${l.turn}/${l.index}`, l]));

  for (const c of cases) {
    it.skipIf(c.longContext && !dataPresent)(`${c.id} matches upstream call by call`, () => {
      const got: CallResultLine[] = [];
      runCallCases([c], (line) => got.push(line), { now });
      const want = expected.filter((l) => l.id === c.id);
      expect(got.length).toBe(want.length);
      for (const line of got) {
        const w = byKey.get(`${line.id}/${line.turn}/${line.index}`)!;
        const call = c.turns[line.turn][line.index];
        if (w.result !== undefined) expect(line.result, `${c.id} turn ${line.turn}: ${call}`).toBe(w.result);
        else {
          expect(line.result.slice(0, 300), `${c.id} turn ${line.turn}: ${call}`).toBe(w.result_head);
          expect(line.result.length).toBe(w.result_length);
          expect(fullTextSha256(line.result)).toBe(w.result_sha256);
        }
      }
    });
  }
});

type Verdict = true | { type: string; message: string; differences?: string[]; missing?: string[] };

interface CheckerLine {
  id: string;
  verdicts: Partial<Record<Perturbation, Verdict>>;
}

describe.skipIf(!dataPresent)("multi-turn checker against upstream's verdicts", () => {
  it(
    "agrees on validity, error type, message, differing attributes and missing results",
    () => {
      const expected = readFixtureLines<CheckerLine>("checker.jsonl");
      const tasks = new Map([...allTasks().values()].flat().map((t) => [t.id, t]));
      const disagreements: string[] = [];
      let failures = 0;
      for (const line of expected) {
        const task = tasks.get(line.id)!;
        const variants = perturbations(task.groundTruth);
        expect([...variants.keys()]).toEqual(Object.keys(line.verdicts));
        for (const [name, modelTurns] of variants) {
          const result = checkMultiTurn(task, modelTurns, { now });
          let got: Verdict = true;
          if (result.failure) {
            failures++;
            got = { type: result.failure.errorType, message: textDigest(result.failure.message) };
            if (result.failure.differences) got.differences = result.failure.differences.map((d) => d.attribute).sort();
            if (result.failure.missing) got.missing = result.failure.missing.map(textDigest);
          }
          const want = line.verdicts[name];
          if (JSON.stringify(got) !== JSON.stringify(want)) disagreements.push(`${line.id}/${name}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
        }
      }
      expect(disagreements.slice(0, 10)).toEqual([]);
      expect(expected.length).toBe(800);
      expect(failures).toBeGreaterThan(1000);
    },
    600_000,
  );
});

interface FuzzLine {
  id: string;
  turns: string[][];
  results: string[][];
}

describe.skipIf(!dataPresent)("randomly typed calls on real tasks", () => {
  it(
    "return upstream's exact text (wrong types, missing and unknown arguments, mixed with ground truth)",
    () => {
      const tasks = new Map([...allTasks().values()].flat().map((t) => [t.id, t]));
      const mismatches: string[] = [];
      let calls = 0;
      for (const line of readFixtureLines<FuzzLine>("fuzz.jsonl")) {
        const env = createBfclEnvironment(tasks.get(line.id)!, { now });
        line.turns.forEach((turn, t) => {
          env.execute(turn).forEach((text, i) => {
            calls++;
            if (textDigest(text) !== line.results[t][i]) mismatches.push(`${line.id} turn ${t}: ${turn[i]} → ${text.slice(0, 200)}`);
          });
        });
      }
      expect(mismatches).toEqual([]);
      expect(calls).toBe(2400);
    },
    600_000,
  );
});
