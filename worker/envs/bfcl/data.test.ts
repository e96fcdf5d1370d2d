import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bfclDataDir, loadFunctionDocs, loadLongContext, loadMultiTurnTasks } from "./data";
import { hasBfclData } from "../../../test/fixtures/bfcl-data";
import { initialTools, toOpenAiTools, toolsPerTurn } from "./tools";

function fakeDataDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bfcl-data-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const entry = (id: string, extra: object = {}) =>
  JSON.stringify({ id, question: [[{ role: "user", content: "hi" }]], initial_config: {}, involved_classes: ["MathAPI"], ...extra });
const answer = (id: string, gt: string[][] = [["add(a=1, b=2)"]]) => JSON.stringify({ id, ground_truth: gt });

describe("loading tasks", () => {
  it("says what is missing and where it looked", () => {
    const dir = fakeDataDir({});
    expect(() => loadMultiTurnTasks("multi_turn_base", dir)).toThrow(
      `BFCL data not found: ${path.join(dir, "data/BFCL_v4_multi_turn_base.json")} is missing. Set ENVACE_DATA_DIR`,
    );
  });

  it("names the file and line of a malformed entry", () => {
    const dir = fakeDataDir({
      "data/BFCL_v4_multi_turn_base.json": `${entry("multi_turn_base_0")}\n{"id": "multi_turn_base_1", "question": [\n`,
      "data/possible_answer/BFCL_v4_multi_turn_base.json": `${answer("multi_turn_base_0")}\n`,
    });
    expect(() => loadMultiTurnTasks("multi_turn_base", dir)).toThrow(`${path.join(dir, "data/BFCL_v4_multi_turn_base.json")}:2: not valid JSON`);
  });

  it("rejects unknown classes, missing ground truth and turn-count mismatches", () => {
    const base = (e: string, a: string) =>
      fakeDataDir({ "data/BFCL_v4_multi_turn_base.json": e + "\n", "data/possible_answer/BFCL_v4_multi_turn_base.json": a + "\n" });
    expect(() => loadMultiTurnTasks("multi_turn_base", base(entry("multi_turn_base_0", { involved_classes: ["ShopAPI"] }), answer("multi_turn_base_0")))).toThrow(
      /:1: task multi_turn_base_0 names unknown classes: ShopAPI/,
    );
    expect(() => loadMultiTurnTasks("multi_turn_base", base(entry("multi_turn_base_0"), answer("multi_turn_base_9")))).toThrow(/has no ground truth/);
    expect(() => loadMultiTurnTasks("multi_turn_base", base(entry("multi_turn_base_0"), answer("multi_turn_base_0", [[], []])))).toThrow(
      /has 1 turns but its ground truth has 2/,
    );
    expect(() => loadMultiTurnTasks("multi_turn_base", base(entry("multi_turn_base_0", { involved_classes: "MathAPI" }), answer("multi_turn_base_0")))).toThrow(
      /:1: involved_classes: Expected array/,
    );
  });

  it("keeps the int/float distinction and key order of initial_config", () => {
    const dir = fakeDataDir({
      "data/BFCL_v4_multi_turn_base.json":
        '{"id": "multi_turn_base_0", "question": [[{"role": "user", "content": "hi"}]], "initial_config": {"TradingBot": {"account_info": {"balance": 10.0, "account_id": 7}}}, "involved_classes": ["TradingBot"]}\n',
      "data/possible_answer/BFCL_v4_multi_turn_base.json": answer("multi_turn_base_0") + "\n",
    });
    const [task] = loadMultiTurnTasks("multi_turn_base", dir);
    expect(task.initialConfig.get("TradingBot")).toBeDefined();
    const info = (task.initialConfig.get("TradingBot") as never as { get(k: string): unknown }).get("account_info") as { entries(): unknown[] };
    expect(info.entries()).toEqual([["balance", 10.0], ["account_id", 7n]]);
  });
});

describe.skipIf(!hasBfclData())("the shared data", () => {
  it("loads 200 tasks per category, the function docs and the long-context constants", () => {
    const tasks = loadMultiTurnTasks("multi_turn_miss_func");
    expect(tasks.length).toBe(200);
    expect(loadFunctionDocs("GorillaFileSystem").map((d) => d.name)).toContain("cd");
    const lc = loadLongContext();
    expect(lc.source.startsWith(bfclDataDir())).toBe(true);
    expect((lc.values.get("FILES_TAIL_USED") as string[]).length).toBeGreaterThan(0);
  });

  it("holds miss_func functions out until their turn and builds OpenAI tool schemas", () => {
    const task = loadMultiTurnTasks("multi_turn_miss_func").find((t) => t.id === "multi_turn_miss_func_0")!;
    const { functions, holdout } = initialTools(task);
    expect(functions.map((f) => f.name)).not.toContain("sort");
    expect(holdout.get(3)!.map((f) => f.name)).toEqual(["sort"]);
    const perTurn = toolsPerTurn(task);
    expect(perTurn[3].functions[perTurn[3].functions.length - 1].name).toBe("sort");
    const [tool] = toOpenAiTools(loadFunctionDocs("MathAPI").filter((d) => d.name === "add"));
    expect(tool.type).toBe("function");
    expect(tool.function.parameters.type).toBe("object");
    expect((tool.function.parameters.properties as Record<string, { type: string; format?: string }>).a).toMatchObject({ type: "number", format: "float" });
    expect(tool.function.description).toContain("The response field has the following schema: {");
  });
});
