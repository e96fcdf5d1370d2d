import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PyDict } from "../../../lib/python/values";
import { checkMultiTurn } from "./scoring/checker";
import type { BfclTask } from "./data";
import { groundTruthAgent, runBfclEpisode, type BfclAgent } from "./episode";
import { multiTurnOverall, scoreCategory } from "./scoring/scores";
import { allTasks, GOLDEN_TODAY_MS, hasBfclData } from "../../../test/fixtures/bfcl-data";
import { HOLDOUT_USER_MESSAGE, MAXIMUM_STEP_LIMIT } from "./tools";

const now = () => GOLDEN_TODAY_MS;

/** A data directory with just MathAPI's function documents, so the loop tests run without the shared data. */
const mathDocsDir = (() => {
  const dir = mkdtempSync(path.join(tmpdir(), "bfcl-docs-"));
  mkdirSync(path.join(dir, "data/multi_turn_func_doc"), { recursive: true });
  const doc = (name: string) => ({ name, description: name, parameters: { type: "dict", properties: {}, required: [] } });
  writeFileSync(path.join(dir, "data/multi_turn_func_doc/math_api.json"), [doc("add"), doc("mean")].map((d) => JSON.stringify(d)).join("\n") + "\n");
  return dir;
})();

function mathTask(groundTruth: string[][], extra: Partial<BfclTask> = {}): BfclTask {
  return {
    id: "multi_turn_base_9999",
    category: "multi_turn_base",
    question: groundTruth.map((_, i) => [{ role: "user", content: `turn ${i}` }]),
    involvedClasses: ["MathAPI"],
    initialConfig: new PyDict(),
    missedFunctions: new Map(),
    excludedFunctions: [],
    groundTruth,
    longContext: false,
    ...extra,
  };
}

describe.skipIf(!hasBfclData())("a policy that emits the ground truth", () => {
  it("scores 100 % on every multi-turn category through the episode loop and the checker", async () => {
    const scores = [];
    for (const [category, tasks] of allTasks()) {
      const results = [];
      for (const task of tasks) {
        const episode = await runBfclEpisode(task, groundTruthAgent(), { now });
        expect(episode.forceQuit).toBe(false);
        const result = checkMultiTurn(task, episode.modelTurns, { now });
        if (!result.valid) throw new Error(`${task.id}: ${JSON.stringify(result.failure)}`);
        results.push(result);
      }
      scores.push(scoreCategory(category, results));
    }
    expect(scores.map((s) => [s.category, s.accuracy, s.totalCount])).toEqual([
      ["multi_turn_base", 1, 200],
      ["multi_turn_miss_func", 1, 200],
      ["multi_turn_miss_param", 1, 200],
      ["multi_turn_long_context", 1, 200],
    ]);
    expect(multiTurnOverall(scores)).toMatchObject({ accuracy: 1, totalCount: 800, complete: true });
  }, 600_000);

  it("reveals miss_func's held-out functions at their turn, with upstream's user message", async () => {
    const task = allTasks().get("multi_turn_miss_func")!.find((t) => t.id === "multi_turn_miss_func_0")!;
    const seen: { turn: number; names: string[]; last: unknown }[] = [];
    const agent: BfclAgent = async (req) => {
      if (req.step === 0) seen.push({ turn: req.turn, names: req.functions.map((f) => f.name), last: req.messages[req.messages.length - 1] });
      return { calls: req.step === 0 ? [...req.task.groundTruth[req.turn]] : [] };
    };
    const episode = await runBfclEpisode(task, agent, { now });
    expect(seen[2].names).not.toContain("sort");
    expect(seen[3].names).toContain("sort");
    expect(seen[3].last).toEqual({ role: "user", content: HOLDOUT_USER_MESSAGE });
    expect(episode.turns[3].revealed).toEqual(["sort"]);
    expect(checkMultiTurn(task, episode.modelTurns, { now }).valid).toBe(true);
  });
});

describe("the scripted multi-turn loop", () => {
  it("feeds results back and ends a turn on an empty or undecodable step", async () => {
    const task = mathTask([["add(a=1, b=2)"], ["mean(numbers=[1, 2])"]]);
    const replies = [{ calls: ["add(a=1, b=2)"] }, { calls: [] }, { calls: null, raw: "not a call" }];
    const requests: number[] = [];
    const episode = await runBfclEpisode(
      task,
      async (req) => {
        requests.push(req.messages.length);
        expect(req.functions.map((f) => f.name)).toEqual(["add", "mean"]);
        return replies.shift() ?? { calls: [] };
      },
      { dataDir: mathDocsDir },
    );
    expect(episode.turns[0].steps.map((s) => s.results)).toEqual([['{"result": 3}'], []]);
    expect(episode.turns[1].steps).toEqual([{ raw: "not a call", calls: null, results: [] }]);
    expect(episode.modelTurns).toEqual([[["add(a=1, b=2)"]], []]);
    expect(episode.messages[2]).toEqual({ role: "tool", call: "add(a=1, b=2)", content: '{"result": 3}' });
    const check = checkMultiTurn(task, episode.modelTurns);
    expect(check.failure).toMatchObject({ errorType: "multi_turn:empty_turn_model_response", turn: 1, message: "Model response list is empty for turn 1" });
  });

  it("force-quits a task after more than 20 steps in one turn, which the checker fails", async () => {
    const task = mathTask([["add(a=1, b=2)"], ["add(a=2, b=2)"]]);
    let steps = 0;
    const episode = await runBfclEpisode(
      task,
      async () => {
        steps++;
        return { calls: ["add(a=1, b=2)"] };
      },
      { dataDir: mathDocsDir },
    );
    expect(steps).toBe(MAXIMUM_STEP_LIMIT + 1);
    expect(episode.forceQuit).toBe(true);
    expect(episode.modelTurns.length).toBe(1);
    const check = checkMultiTurn(task, episode.modelTurns);
    expect(check.valid).toBe(false);
    expect(check.failure).toMatchObject({
      errorType: "multi_turn:force_terminated",
      message:
        "Model was force-terminated during inference phase. The length of the model result turns (1) does not match the length of the ground truth turns (2).",
    });
  });
});
