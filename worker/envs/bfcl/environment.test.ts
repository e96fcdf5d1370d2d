/**
 * The BFCL run environment on real tasks: what the policy sees turn by turn (miss_func reveals), what
 * happens to calls the back ends refuse, the step limit, the failing check a wrong episode names, tasks that
 * could not be run (never scored), and bad input (missing data, malformed lines, unknown classes or
 * functions). Needs the BFCL data (skips without).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig } from "../../../contracts/run-config";
import { expandJobs, runOneRollout, Termination, type JudgeTurnHook } from "../../engine/rollout";
import { driverConfigFrom, runEvaluation, runTrainingStep, toTrajectory } from "../../engine/step";
import type { PolicyClient, TrainerClient } from "../../engine/io";
import { bfclGroundTruthPolicy, callBlock, multiTurnAnswer } from "../../../test/doubles/bfcl-ground-truth";
import { fakeGeneration } from "../../../test/doubles/shop-oracle";
import { hasBfclData } from "../../../test/fixtures/bfcl-data";
import { bfclDataDir, loadMultiTurnTasks } from "./data";
import { loadSingleTurnCategory } from "./single-turn/data";
import { functionDocsFor, HOLDOUT_USER_MESSAGE } from "./tools";
import { bfclRunEnvironment, selectInstances } from "./environment";
import { bfclEvalMetrics, bfclEvalReport, trajectoryOutcome } from "./run/metrics";
import { bfclToolEnvironment, multiTurnInstance } from "./run/multi-turn";
import { singleTurnInstance } from "./run/single-turn";
import { memoryExecutor, memoryInstances } from "./run/memory";
import { loadMemoryQuestions } from "./memory/data";
import { createMemoryBackend } from "./memory/backends";
import { pyFromJsonText, type PyDict, type PyValue } from "../../../lib/python/values";
import type { TaskInstance } from "../../engine/types";

const noJudge: JudgeTurnHook = async () => {
  throw new Error("not judged per turn");
};

function config(input: Record<string, unknown>): RunConfig {
  const parsed = parseRunConfig({ kind: "eval", rollout: { paradigm: "environment", maxAssistantTurns: 200, promptBudgetTokens: 1_000_000 }, ...input });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
}

const run = async (instance: TaskInstance, policy: PolicyClient, paradigm: "environment" | "rehearse" = "environment") =>
  toTrajectory(
    await runOneRollout(expandJobs([instance], 1, "t")[0], { policy }, driverConfigFrom(config({ rollout: { paradigm, maxAssistantTurns: 200, promptBudgetTokens: 1_000_000 } }), "eval", {}), noJudge),
    paradigm,
  );

describe.skipIf(!hasBfclData())("BFCL multi-turn episodes in the engine", () => {
  const task = loadMultiTurnTasks("multi_turn_miss_func").find((t) => t.id === "multi_turn_miss_func_0")!;

  it("reveals a held-out function at its turn, with upstream's message, and scores the ground truth 1", async () => {
    const policy = bfclGroundTruthPolicy(multiTurnAnswer(task));
    const t = await run(multiTurnInstance(task), policy);
    expect(t.reward).toBe(1);
    const acts = policy.requests.filter((r) => r.role === "act");
    const turnOf = (r: (typeof acts)[number]) => r.messages.filter((m) => m.role === "user").length - 1;
    const hasSort = (r: (typeof acts)[number]) => r.tools!.some((x) => x.function.name === "sort");
    expect(acts.filter((r) => turnOf(r) < 3).some(hasSort)).toBe(false);
    expect(acts.filter((r) => turnOf(r) >= 3).every(hasSort)).toBe(true);
    expect(t.messages.filter((m) => m.role === "user")[3].content).toBe(HOLDOUT_USER_MESSAGE);
    // The verdicts say every turn matched; the outcome is stored with the trajectory.
    expect(t.verdicts.map((v) => [v.itemId, v.passed])).toEqual([1, 2, 3, 4, 5].map((n) => [`turn_${n}`, true]));
    expect(trajectoryOutcome(t)).toMatchObject({ category: "multi_turn_miss_func", taskId: task.id, scored: true, valid: true, turns: { played: 5, expected: 5 } });
  });

  it("names the failing check: the turn, the class and the differing attributes", async () => {
    const answer = multiTurnAnswer(task);
    if (answer.kind !== "multi_turn") throw new Error("unexpected");
    // Turn 1 forgets to create the directory.
    const wrong = { ...answer, turns: [answer.turns[0].filter((c) => !c.startsWith("mkdir")), ...answer.turns.slice(1)] };
    const t = await run(multiTurnInstance(task), bfclGroundTruthPolicy(wrong));
    expect(t.reward).toBe(0);
    const outcome = trajectoryOutcome(t)!;
    expect(outcome.check).toMatchObject({ errorType: "multi_turn:instance_state_mismatch", turn: 0, className: "GorillaFileSystem" });
    expect(outcome.check!.differences!.map((d) => d.attribute)).toContain("root");
    const failing = t.verdicts.find((v) => !v.passed)!;
    expect(failing.question).toMatch(/^Turn 1: instance state of GorillaFileSystem differs from the ground truth \(.*root/);
    expect(bfclEvalReport([t]).lines.at(-1)).toMatch(/^multi_turn_miss_func_0 trial 0: turn 1: instance state of GorillaFileSystem differs/);
  });

  it("gives the model the back end's error for a call it refuses, and a clear tool error for arguments that are not an object", async () => {
    const env = bfclToolEnvironment(task);
    expect(await env.execute("cd", JSON.stringify({ folder: "document", colour: "red" }))).toBe("Error during execution: GorillaFileSystem.cd() got an unexpected keyword argument 'colour'");
    expect(await env.execute("cd", "[1, 2]")).toBe("Error during execution: arguments of cd must be a JSON object");
    expect(await env.execute("no_such_function", "{}")).toBe("Error during execution: name 'no_such_function' is not defined");
    expect(await env.execute("cd", JSON.stringify({ folder: "document" }))).toBe('{"current_working_directory": "document"}');
  });

  it("force-quits a turn after more than 20 steps, as upstream; the task fails as force-terminated", async () => {
    const ls = callBlock("ls()", functionDocsFor(task.involvedClasses));
    const looping: PolicyClient = { generate: async () => fakeGeneration("p", ls) };
    const t = await run(multiTurnInstance(task), looping);
    expect(t.terminationReason).toBe(Termination.maxActsPerUserTurn);
    expect(t.turns.filter((x) => x.role === "act")).toHaveLength(21);
    expect(trajectoryOutcome(t)).toMatchObject({ valid: false, turns: { played: 1, expected: 5 }, check: { errorType: "multi_turn:force_terminated" } });
    expect(t.verdicts).toEqual([expect.objectContaining({ itemId: "all_turns", passed: false, question: expect.stringMatching(/force-terminated after 1 of 5 turns \(max_acts_per_user_turn\)/) })]);
  });

  it("records rehearsed beside real responses with fidelity per call under shadow execution", async () => {
    const rehearsing = bfclGroundTruthPolicy(multiTurnAnswer(task));
    const instance = multiTurnInstance(task);
    const train = config({ kind: "train", data: { dataset: "bfcl:multi_turn_miss_func" }, rollout: { paradigm: "rehearse", shadowExecution: true, maxAssistantTurns: 200, promptBudgetTokens: 1_000_000 } });
    const r = await runOneRollout(expandJobs([instance], 1, "t")[0], { policy: rehearsing }, driverConfigFrom(train, "train", {}), noJudge);
    const rehearsals = r.state.records.filter((x) => x.role === "rehearse");
    expect(rehearsals.length).toBeGreaterThan(5);
    expect(rehearsals.every((x) => x.real !== undefined && x.rehearsed !== undefined && x.fidelity !== undefined)).toBe(true);
    expect(rehearsals.find((x) => x.call?.name === "cd")?.real).toBe('{"current_working_directory": "document"}');
    // The reward is still upstream's checker on the calls made: the ground truth passes whatever was rehearsed.
    expect(r.normalizedReward).toBe(1);
  });

  it("never scores a task that could not be run (the policy node failed)", async () => {
    const failing: PolicyClient = { generate: async () => Promise.reject(new Error("HTTP 503 from node gpu-1")) };
    const t = await run(multiTurnInstance(task), failing);
    expect(t.terminationReason).toBe(Termination.generationFailed);
    expect(trajectoryOutcome(t)).toMatchObject({ scored: false, notScoredReason: expect.stringMatching(/policy node failed to generate: HTTP 503 from node gpu-1/) });
    const good = await run(multiTurnInstance(task), bfclGroundTruthPolicy(multiTurnAnswer(task)));
    const m = bfclEvalMetrics([t, good]);
    expect(m["val/bfcl/multi_turn_miss_func/accuracy"]).toBe(1);
    expect(m["val/bfcl/multi_turn_miss_func/not_scored"]).toBe(1);
    expect(bfclEvalReport([t, good]).lines[0]).toMatch(/1 trial\(s\) could not be run and are not scored/);
  });
});

describe.skipIf(!hasBfclData())("BFCL single-turn episodes", () => {
  it("checks the one reply without executing it: an irrelevance entry answered with a call fails, named", async () => {
    const entry = loadSingleTurnCategory("irrelevance")[0];
    const instance = singleTurnInstance(entry);
    const call = `<tool_call>\n${JSON.stringify({ name: instance.tools[0].function.name, arguments: {} })}\n</tool_call>`;
    const t = await run(instance, { generate: async () => fakeGeneration("p", call) });
    expect(t.terminationReason).toBe(Termination.answered);
    expect(t.toolCalls).toBe(0);
    expect(trajectoryOutcome(t)).toMatchObject({ valid: false, check: { errorType: "irrelevance_error:decoder_success" } });
    const quiet = await run(instance, { generate: async () => fakeGeneration("p", "I cannot help with that using these functions.") });
    expect(quiet.reward).toBe(1);
  });

  it("shows dotted function names with underscores and checks them back (upstream's underscore_to_dot)", () => {
    const entry = loadSingleTurnCategory("simple_python").find((e) => e.functions.some((f) => f.name.includes(".")))!;
    expect(singleTurnInstance(entry).tools.every((t) => /^[A-Za-z0-9_-]+$/.test(t.function.name))).toBe(true);
  });
});

describe.skipIf(!hasBfclData())("the BFCL run environment", () => {
  it("runs the tasks data.instanceIds names and refuses unknown ones by name", () => {
    const env = bfclRunEnvironment(config({ data: { dataset: "bfcl:multi_turn,simple_python", instanceIds: ["multi_turn_base_3", "simple_python_7"] } }));
    expect(env.evalSet().map((i) => [i.id, i.dataSource])).toEqual([
      ["multi_turn_base_3", "bfcl:multi_turn_base"],
      ["simple_python_7", "bfcl:simple_python"],
    ]);
    expect(env.evaluationParadigm?.paradigm).toBe("environment");
    expect(() => bfclRunEnvironment(config({ data: { dataset: "bfcl:multi_turn", instanceIds: ["multi_turn_base_3", "simple_python_7", "nope"] } }))).toThrow(
      /data\.instanceIds: no task "simple_python_7", "nope" in multi_turn_base, multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context/,
    );
  });

  it("logs the categories it cannot run, and evaluates a training run on a fixed sample", () => {
    const notes: string[] = [];
    bfclRunEnvironment(config({ data: { dataset: "bfcl:memory,simple_java" } }), (m) => notes.push(m));
    expect(notes).toEqual([expect.stringMatching(/^BFCL memory_vector is not run: it needs an embedding node/)]);
    const train = parseRunConfig({ kind: "train", data: { dataset: "bfcl:multi_turn_base", instancesPerStep: 3 } });
    if (!train.ok) throw new Error("bad config");
    const trainNotes: string[] = [];
    const env = bfclRunEnvironment(train.config, (m) => trainNotes.push(m));
    expect(env.forStep(2)).toEqual(env.forStep(2));
    expect(env.evalSet()).toHaveLength(3);
    expect(trainNotes.join("\n")).toMatch(/no training split: evaluating on a fixed sample of 3 of the 200 training tasks/);
    // data.poolSize fixes the tasks training draws from.
    const pooled = parseRunConfig({ kind: "train", data: { dataset: "bfcl:multi_turn_base", instancesPerStep: 4, poolSize: 2, split: "test" } });
    if (!pooled.ok) throw new Error("bad config");
    const poolNotes: string[] = [];
    const poolEnv = bfclRunEnvironment(pooled.config, (m) => poolNotes.push(m));
    const seen = new Set([1, 2, 3, 4, 5].flatMap((step) => poolEnv.forStep(step).map((i) => i.id)));
    expect(seen.size).toBe(2);
    expect(poolNotes).toContain("BFCL has one split: data.split is ignored (every task of the selected categories, or data.instanceIds)");
  });
});

describe.skipIf(!hasBfclData())("bad BFCL input", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "bfcl-bad-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const real = bfclDataDir();
  /** A data directory like the real one whose multi_turn_base files are replaced. */
  function dataDir(name: string, entries: string[], answers: string[]): string {
    const root = path.join(dir, name);
    mkdirSync(path.join(root, "data", "possible_answer"), { recursive: true });
    symlinkSync(path.join(real, "data", "multi_turn_func_doc"), path.join(root, "data", "multi_turn_func_doc"));
    symlinkSync(path.join(real, "reference"), path.join(root, "reference"));
    writeFileSync(path.join(root, "data", "BFCL_v4_multi_turn_base.json"), entries.join("\n") + "\n");
    writeFileSync(path.join(root, "data", "possible_answer", "BFCL_v4_multi_turn_base.json"), answers.join("\n") + "\n");
    return root;
  }
  const lines = (file: string) => readFileSync(path.join(real, file), "utf8").split("\n").filter(Boolean);
  const entries = lines("data/BFCL_v4_multi_turn_base.json").slice(0, 2);
  const answers = lines("data/possible_answer/BFCL_v4_multi_turn_base.json").slice(0, 2);
  const selection = { categories: ["multi_turn_base" as const], runnable: ["multi_turn_base" as const], notRun: [] };

  it("names the missing data directory and the variable to set", () => {
    expect(() => selectInstances(selection, [], { dataDir: path.join(dir, "absent") })).toThrow(/BFCL data not found: .*absent\/data\/BFCL_v4_multi_turn_base\.json is missing\. Set ENVACE_DATA_DIR/);
  });

  it("names the file and line of a malformed entry", () => {
    const root = dataDir("malformed", [entries[0], "{not json"], answers);
    expect(() => selectInstances(selection, [], { dataDir: root })).toThrow(/BFCL_v4_multi_turn_base\.json:2: not valid JSON/);
  });

  it("names unknown classes and unknown held-out functions of a task", () => {
    const unknownClass = JSON.parse(entries[1]);
    unknownClass.involved_classes = ["GorillaFileSystem", "TeleportAPI"];
    expect(() => selectInstances(selection, [], { dataDir: dataDir("class", [entries[0], JSON.stringify(unknownClass)], answers) })).toThrow(
      /BFCL_v4_multi_turn_base\.json:2: task multi_turn_base_1 names unknown classes: TeleportAPI/,
    );
    const unknownFunction = JSON.parse(entries[0]);
    unknownFunction.missed_function = { "1": ["teleport"] };
    expect(() => selectInstances(selection, [], { dataDir: dataDir("function", [JSON.stringify(unknownFunction)], answers.slice(0, 1)) })).toThrow(
      /task multi_turn_base_0: missed_function names teleport, which no involved class/,
    );
  });
});

describe.skipIf(!hasBfclData())("BFCL multi-turn training steps in all three paradigms", () => {
  const tasks = loadMultiTurnTasks("multi_turn_base").slice(0, 2);
  const trainer: TrainerClient = {
    forwardBackward: async (data) => ({ metrics: { rows: data.length } }),
    optimStep: async () => ({ metrics: {} }),
    updateSampler: async () => {},
    saveWeightsForSampler: async (name) => ({ path: `tinker://sampler/${name}` }),
    saveState: async (name) => ({ path: name }),
    loadState: async () => {},
  };
  /** The ground truth of whichever task the conversation opens with. */
  const policy: PolicyClient = {
    generate: (req) => {
      const first = req.messages.find((m) => m.role === "user")?.content;
      const task = tasks.find((t) => t.question[0][0].content === first);
      return task ? bfclGroundTruthPolicy(multiTurnAnswer(task)).generate(req) : Promise.resolve(fakeGeneration("p", '\n<execution_result>\n{"status": "ok"}\n</execution_result>'));
    },
  };
  /** An external tool simulator that answers every call with a plausible object. */
  const simulator = { complete: async () => ({ text: JSON.stringify({ analysis: "plausible", execution_result: { status: "ok" } }) }) };

  for (const paradigm of ["environment", "simulator", "rehearse"] as const) {
    it(`trains in the ${paradigm} paradigm: rewards from upstream's checker, rows from both roles where rehearsed`, async () => {
      const cfg = config({
        kind: "train",
        data: { dataset: "bfcl:multi_turn_base", instancesPerStep: 2, rolloutsPerInstance: 2 },
        rollout: { paradigm, shadowExecution: paradigm === "rehearse", maxAssistantTurns: 200, promptBudgetTokens: 1_000_000, ...(paradigm === "simulator" ? { simulator: { node: "sim", model: "sim" } } : {}) },
      });
      const instances = tasks.map((t) => multiTurnInstance(t));
      const result = await runTrainingStep({ instances, config: cfg, policy, trainer, simulator, stepIndex: 1, runId: "bfcl" });
      expect(result.trajectories).toHaveLength(4);
      // The checker reruns the calls on the real back ends whatever answered them in the episode.
      expect(result.trajectories.every((t) => t.reward === 1 && t.paradigm === paradigm)).toBe(true);
      const roles = new Set(result.trajectories.flatMap((t) => t.turns.map((x) => x.role)));
      if (paradigm === "rehearse") {
        expect(roles.has("rehearse")).toBe(true);
        expect(result.metrics["fidelity/comparisons"]).toBeGreaterThan(0);
      } else expect(roles.has(paradigm)).toBe(true);
      expect(result.metrics["training/num_datums"]).toBeGreaterThan(0);
    });
  }
});

describe.skipIf(!hasBfclData())("test-time rehearsal on BFCL multi-turn", () => {
  it("runs private rehearsed attempts without touching the back ends, then one real execution that is scored and reported", async () => {
    const tasks = loadMultiTurnTasks("multi_turn_base").slice(0, 2);
    let worlds = 0;
    const instances = tasks.map((t) => {
      const inst = multiTurnInstance(t);
      return { ...inst, environment: { create: () => (worlds++, inst.environment!.create()) } };
    });
    const requests: { role: string; system: string }[] = [];
    const policy: PolicyClient = {
      generate: (req) => {
        requests.push({ role: req.role, system: req.messages.find((m) => m.role === "system")?.content ?? "" });
        const first = req.messages.find((m) => m.role === "user")?.content;
        const task = tasks.find((t) => t.question[0][0].content === first);
        if (task) return bfclGroundTruthPolicy(multiTurnAnswer(task)).generate(req);
        return Promise.resolve(fakeGeneration("p", req.role === "rehearse" ? '\n<execution_result>\n{"status": "ok"}\n</execution_result>' : "Assessment: fine.\nSuggestion: none."));
      },
    };
    const cfg = config({ data: { dataset: "bfcl:multi_turn_base" }, testTime: { enabled: true, attempts: 2, mode: "parallel" } });
    const result = await runEvaluation({ instances, config: cfg, policy, stepIndex: 1, runId: "tt" });
    expect(result.trajectories).toHaveLength(2);
    for (const t of result.trajectories) {
      expect(t.testTime?.attempts).toHaveLength(2);
      // Private attempts ran to an end of their own in the rehearsed world (never an environment failure).
      expect(t.testTime!.attempts.every((a) => a.terminationReason !== "" && !a.terminationReason.startsWith("environment_error"))).toBe(true);
      expect(t.paradigm).toBe("environment");
      expect(t.reward).toBe(1);
      expect(trajectoryOutcome(t)).toMatchObject({ scored: true, valid: true });
    }
    // One real world per committed execution: the private attempts never created one.
    expect(worlds).toBe(2);
    expect(requests.some((r) => r.role === "rehearse")).toBe(true);
    const metrics = bfclEvalMetrics(result.trajectories);
    expect(metrics["val/bfcl/multi_turn_base/accuracy"]).toBe(1);
    expect(bfclEvalReport(result.trajectories).lines[0]).toBe("multi_turn_base: 100.00 % (2/2 trials of 2 tasks)");
  });
});

describe("BFCL memory calls through upstream's call-string executor", () => {
  it("gives the back end's own texts for every call, a NameError for unknown functions and the binding's TypeError", () => {
    const calls: [string, Record<string, unknown>][] = [
      ["core_memory_add", { key: "user_name", value: "Michael" }],
      ["core_memory_add", { key: "user_name", value: "again" }],
      ["archival_memory_add", { key: "home_city", value: "Seattle, WA" }],
      ["archival_memory_key_search", { query: "city", k: 2 }],
      ["core_memory_retrieve_all", {}],
      ["core_memory_retrieve", { key: "missing" }],
      ["core_memory_add", { key: "Bad Key", value: "x" }],
      ["core_memory_add", { key: "k" }],
      ["core_memory_add", { key: "k", value: "v", colour: "red" }],
    ];
    const viaExecutor = createMemoryBackend("MemoryAPI_kv");
    const direct = createMemoryBackend("MemoryAPI_kv");
    const executor = memoryExecutor("memory_kv_0-customer-0", viaExecutor);
    for (const [name, args] of calls) {
      const kwargs = (pyFromJsonText(JSON.stringify(args)) as PyDict).entries() as [string, PyValue][];
      expect([name, executor.execute(name, JSON.stringify(args))]).toEqual([name, direct.execute(name, [], kwargs)]);
    }
    expect(executor.execute("teleport", "{}")).toBe("Error during execution: name 'teleport' is not defined");
    expect(executor.execute("core_memory_add", "[1]")).toBe("Error during execution: arguments of core_memory_add must be a JSON object");
  });
});

describe.skipIf(!hasBfclData())("BFCL tasks that could not be run are never scored", () => {
  it("leaves out an episode whose scoring crashed, and a memory question whose prerequisites failed", async () => {
    const task = loadMultiTurnTasks("multi_turn_base")[0];
    const crashing: TaskInstance = {
      ...multiTurnInstance(task),
      scoreEpisode: () => {
        throw new Error("checker exploded");
      },
    };
    const crashed = await run(crashing, bfclGroundTruthPolicy(multiTurnAnswer(task)));
    expect(trajectoryOutcome(crashed)).toMatchObject({ scored: false, notScoredReason: "scoring failed: checker exploded" });
    const m = bfclEvalMetrics([crashed]);
    expect(m["val/bfcl/multi_turn_base/not_scored"]).toBe(1);
    expect(m["val/bfcl/multi_turn_base/accuracy"]).toBeUndefined();

    const [question] = memoryInstances("memory_kv");
    const questionText = loadMemoryQuestions("memory_kv")[0].question[0][0].content;
    const answer = loadMemoryQuestions("memory_kv")[0].answers[0];
    // The node answers the question but fails every prerequisite conversation.
    const flaky: PolicyClient = {
      generate: async (req) => {
        if (req.messages.some((m) => m.role === "user" && m.content === questionText)) return fakeGeneration("p", answer);
        throw new Error("HTTP 502 from node gpu-2");
      },
    };
    const t = await run(question, flaky);
    expect(trajectoryOutcome(t)).toMatchObject({ scored: false, notScoredReason: expect.stringMatching(/^the prerequisite conversation memory_kv_prereq_0-customer-0 could not be run/) });
  });
});
