import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bfclDataDir } from "../single-turn/files";
import { agenticChecker, containsWholeWord, evaluateAgenticEntry, isFunctionCallStep, standardizeAnswer } from "./agentic";
import { MemoryKv, MemoryRecSum } from "./backends";
import { isFirstPrereqEntry, MemoryChain } from "./chain";
import { loadMemoryQuestions, loadPrereqConversation, MEMORY_SCENARIOS, RUNNABLE_MEMORY_CATEGORIES } from "./data";
import { loadMemoryPrompts, memorySystemPrompt, withMemoryPrompt } from "./prompt";
import { NOT_RUN_REASONS } from "../../../../lib/bfcl/not-run";

const call = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("agentic answer check (upstream's agentic_checker)", () => {
  it("normalises like upstream: punctuation and parentheses go, spaces stay, quotes become double", () => {
    expect(standardizeAnswer("It's (about) $19.99, A-B_C*^/")).toBe('it"s about $1999 abc');
  });

  it("needs the answer as a whole word, with Python's Unicode word boundaries", () => {
    expect(agenticChecker("{'answer': 'Michael', 'context': 'you told me'}", ["Michael"]).valid).toBe(true);
    expect(agenticChecker("Michaela", ["Michael"]).valid).toBe(false);
    expect(agenticChecker("about 35 years", ["thirty five", "35"]).valid).toBe(true);
    // `\b` before a non-word character needs a word character in front of it (values checked with Python's re).
    expect(containsWholeWord("cost $1999 total", "$1999")).toBe(false);
    expect(containsWholeWord("x$1999", "$1999")).toBe(true);
    expect(containsWholeWord("café", "caf")).toBe(false);
    expect(agenticChecker("no idea", ["Seattle"])).toMatchObject({ valid: false, errorType: "agentic:answer_not_found" });
  });

  it("checks the last reply that is not a function call", () => {
    const steps = [call("archival_memory_key_search", { query: "name" }), "Your name is Michael.", call("core_memory_retrieve_all", {})];
    expect(isFunctionCallStep(steps[0])).toBe(true);
    expect(isFunctionCallStep(call("f", "not json" as unknown as object))).toBe(false);
    expect(evaluateAgenticEntry("memory_kv_0-customer-0", [steps], ["Michael"])).toMatchObject({ valid: true, answerText: "Your name is Michael." });
    expect(evaluateAgenticEntry("x", [[call("f", {})]], ["a"]).errorType).toBe("agentic:no_last_message");
    expect(evaluateAgenticEntry("x", [["Michael", ""]], ["Michael"]).errorType).toBe("agentic:no_last_message");
    expect(evaluateAgenticEntry("x", [], ["a"]).errorType).toBe("agentic:inference_error");
  });

  it("names the categories it cannot run and why", () => {
    expect(Object.keys(NOT_RUN_REASONS).sort()).toEqual(["memory_vector", "web_search_base", "web_search_no_snippet"]);
    expect(NOT_RUN_REASONS.memory_vector).toMatch(/all-MiniLM-L6-v2/);
  });
});

const hasData = existsSync(path.join(bfclDataDir(), "data", "BFCL_v4_memory.json"));
if (!hasData) console.warn(`BFCL data not found under ${bfclDataDir()}: skipping the memory data tests (set ENVACE_DATA_DIR).`);

describe.skipIf(!hasData)("memory categories on the prerequisite conversations", () => {
  it("loads 155 questions per back end with renamed ids and every scenario's conversation", () => {
    const qs = loadMemoryQuestions("memory_kv");
    expect(qs).toHaveLength(155);
    expect(qs[0].id).toBe("memory_kv_0-customer-0");
    for (const s of MEMORY_SCENARIOS) {
      const prereq = loadPrereqConversation("memory_rec_sum", s);
      expect(prereq.length).toBeGreaterThan(0);
      expect(isFirstPrereqEntry(prereq[0].id)).toBe(true);
      expect(prereq[0].id.startsWith("memory_rec_sum_prereq_")).toBe(true);
    }
  });

  it("memory_kv and memory_rec_sum run the prerequisite chain and answer the questions from memory", () => {
    const prompts = loadMemoryPrompts();
    expect(Object.keys(prompts.agentSettings).sort()).toEqual([...MEMORY_SCENARIOS].sort());
    for (const category of RUNNABLE_MEMORY_CATEGORIES) {
      const chain = new MemoryChain(category);
      for (const scenario of MEMORY_SCENARIOS) {
        loadPrereqConversation(category, scenario).forEach((entry, e) => {
          const backend = chain.forPrereq(entry.id, scenario);
          // A scripted memory policy: store every user turn.
          entry.turns.forEach((turn, t) => {
            const text = turn.map((m) => m.content).join("\n");
            const out =
              backend instanceof MemoryKv
                ? backend.execute("archival_memory_add", [], [["key", `note_${e}_${t}`], ["value", text.slice(0, 2000)]])
                : backend.execute("memory_append", [], [["text", text.slice(0, 400) + "\n"]]);
            expect(out).toMatch(/"status"|"error"/);
          });
          chain.finishPrereq(scenario, backend);
        });
      }
      let correct = 0;
      const questions = loadMemoryQuestions(category);
      for (const q of questions) {
        const backend = chain.forQuestion(q.id, q.scenario);
        const system = memorySystemPrompt(prompts, category, q.scenario, backend);
        const messages = withMemoryPrompt(prompts, q.question[0], true, system);
        expect(messages[0].role).toBe("system");
        expect(messages[0].content).toContain(prompts.agenticResponseFormat.trim());
        // A scripted answerer: search memory for the question and answer with what it found.
        let answer: string;
        if (backend instanceof MemoryKv) {
          const found = JSON.parse(backend.execute("archival_memory_key_search", [], [["query", q.question[0][0].content], ["k", 1n]]));
          answer = JSON.parse(backend.execute("archival_memory_retrieve", [], [["key", found.ranked_results[0][1]]])).value;
        } else {
          answer = (backend as MemoryRecSum).contextText();
        }
        if (evaluateAgenticEntry(q.id, [[call("memory_retrieve", {}), answer]], q.answers).valid) correct++;
      }
      expect(chain.warnings).toEqual([]);
      // Retrieval by BM25 finds some answers, the truncated summary fewer; neither is all or nothing.
      expect(correct).toBeGreaterThan(0);
      expect(correct).toBeLessThan(questions.length);
    }
  });
});
