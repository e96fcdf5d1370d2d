import { describe, expect, it } from "vitest";
import { importTasks, looksLikeTasks } from "./tasks-jsonl";

const line = (v: unknown) => JSON.stringify(v);

describe("the task JSONL importer", () => {
  it("turns instructions and checklist items into task instances", () => {
    const text = [
      line({ id: "ada", instruction: "Remember that Ada likes tea.", checklist: ["Did the assistant store that Ada likes tea?", { question: "Called create_entities", check: { type: "tool_called", name: "create_entities" } }] }),
      "",
      line({
        system: "You keep notes.",
        turns: [
          { instruction: "Write hello to notes.txt", checklist: [{ question: "Wrote the file", weight: 2, required_for_next_turn: true }] },
          { instruction: "Now read it back", checklist: [{ question: "Says hello", check: { type: "reply_contains", all: ["hello"] } }] },
        ],
        setup: [{ name: "create_directory", arguments: { path: "docs" } }],
      }),
    ].join("\n");
    const r = importTasks(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.instances).toHaveLength(2);
    const [ada, notes] = r.instances;
    expect(ada).toEqual({
      id: "task-ada",
      dataSource: "tasks",
      messages: [{ role: "user", content: "Remember that Ada likes tea." }],
      tools: [],
      followUpUserMessages: [],
      checklists: [
        [
          [
            { id: "C0", question: "Did the assistant store that Ada likes tea?", pass_condition: "Did the assistant store that Ada likes tea?", focus_on: "assistant.tool_calls", failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false },
            { id: "C1", question: "Called create_entities", pass_condition: "Called create_entities", focus_on: "assistant.tool_calls", failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false, check: { type: "tool_called", name: "create_entities" } },
          ],
        ],
      ],
    });
    expect(notes!.id).toBe("task-3");
    expect(notes!.messages).toEqual([{ role: "system", content: "You keep notes." }, { role: "user", content: "Write hello to notes.txt" }]);
    expect(notes!.followUpUserMessages).toEqual(["Now read it back"]);
    expect(notes!.checklists[0]!.map((turn) => turn.map((i) => [i.weight, i.required_for_next_turn, i.focus_on]))).toEqual([[[2, true, "assistant.tool_calls"]], [[1, false, "assistant.content.user_visible_reply"]]]);
    expect(notes!.setup).toEqual([{ name: "create_directory", arguments: { path: "docs" } }]);
  });

  it("names the line and the field of every bad row, importing nothing", () => {
    const text = [
      line({ id: 1, instruction: "ok", checklist: ["fine"] }),
      "{not json",
      line({ id: 2, instruction: "no checklist" }),
      line({ id: 3, instruction: "x", checklist: [{ question: "q", check: { type: "state_equals", path: ["a"], value: 1 } }] }),
      line({ id: 4, instruction: "x", checklist: ["q"], turns: [{ instruction: "y", checklist: ["z"] }] }),
      line({ id: 1, instruction: "again", checklist: ["dup"] }),
      line({ id: 5, instruction: "x", checklist: ["q"], colour: "red" }),
      line({ id: 6, instruction: "x", checklist: ["q"], setup: [{ arguments: {} }] }),
    ].join("\n");
    const r = importTasks(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => [e.line, e.message])).toEqual([
      [2, expect.stringMatching(/^not valid JSON/)],
      [3, "checklist: checklist is required with an instruction"],
      [4, expect.stringMatching(/^checklist\.0\.check\.type: Invalid discriminator value/)],
      [5, "turns: give either instruction + checklist or turns, not both"],
      [6, "duplicate id (1)"],
      [7, expect.stringMatching(/Unrecognized key\(s\) in object: 'colour'/)],
      [8, expect.stringMatching(/^setup\.0\.name: Required/)],
    ]);
    const skipped = importTasks(text, { skipInvalid: true });
    expect(skipped.ok && skipped.instances.map((i) => i.id)).toEqual(["task-1"]);
  });

  it("refuses an empty file and tells the two formats apart", () => {
    expect(importTasks("\n\n")).toEqual({ ok: false, errors: [{ line: 1, row: -1, message: "no tasks found (one JSON object per line)" }] });
    expect(looksLikeTasks(line({ instruction: "a", checklist: ["b"] }))).toBe(true);
    expect(looksLikeTasks(line({ turns: [] }))).toBe(true);
    expect(looksLikeTasks(line({ messages: [], extra_info: {} }))).toBe(false);
    expect(looksLikeTasks("[{")).toBe(false);
  });
});
