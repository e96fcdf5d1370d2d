import { describe, expect, it } from "vitest";
import { quickstartPreset } from "../../../contracts/run-config";
import { renderCompletion } from "../../../lib/renderers/tiny-gpt/chat-format";
import { parseActOutput, parseRehearseOutput } from "../../engine/parsers";
import { generateShopInstances, shopTasks } from "./tasks";
import { generateTrainingTranscripts, goldEpisodeTranscripts } from "./transcripts";
import { ShopWorld } from "./world";

describe("ShopWorld", () => {
  it("answers tools with compact JSON and keeps state", () => {
    const w = new ShopWorld();
    expect(w.execute("get_item", '{"item":"mug"}')).toBe('{"item":"mug","price":7,"stock":3}');
    expect(w.execute("add_to_cart", '{"item":"tea","qty":2}')).toBe('{"cart":{"tea":2},"total":8}');
    expect(w.execute("checkout", "{}")).toBe('{"order":"O1","total":8}');
    expect(w.snapshot()).toMatchObject({ cart: {}, orders: [{ order: "O1", items: { tea: 2 }, total: 8 }] });
    expect((w.snapshot() as any).stock.tea).toBe(7);
  });

  it("returns nested JSON errors for bad ids and arguments", () => {
    const w = new ShopWorld();
    const code = (name: string, args: string) => JSON.parse(w.execute(name, args)).error_tool_call.code;
    expect(code("get_item", '{"item":"zzz"}')).toBe("NOT_FOUND");
    expect(code("get_item", "{}")).toBe("INVALID_PARAMETERS");
    expect(code("add_to_cart", '{"item":"tea","qty":0}')).toBe("INVALID_PARAMETERS");
    expect(code("add_to_cart", '{"item":"cap","qty":1}')).toBe("OUT_OF_STOCK");
    expect(code("remove_from_cart", '{"item":"tea"}')).toBe("NOT_IN_CART");
    expect(code("checkout", "{}")).toBe("EMPTY_CART");
    expect(code("fly", "{}")).toBe("TOOL_NOT_AVAILABLE");
    expect(code("get_item", "not json")).toBe("INVALID_PARAMETERS");
  });
});

describe("shop tasks", () => {
  it("train and test splits are disjoint and both non-empty", () => {
    const train = new Set(shopTasks("train").map((t) => t.id));
    const test = shopTasks("test").map((t) => t.id);
    expect(train.size).toBeGreaterThan(50);
    expect(test.length).toBeGreaterThan(5);
    for (const id of test) expect(train.has(id)).toBe(false);
  });

  it("checklist weights sum to 1 per turn and user turns match checklist turns", () => {
    for (const t of [...shopTasks("train"), ...shopTasks("test")]) {
      expect(t.checklists[0].length).toBe(1 + t.followUpUserMessages.length);
      for (const turn of t.checklists[0]) expect(turn.reduce((s, i) => s + i.weight, 0)).toBeCloseTo(1, 9);
    }
  });

  it("gold act outputs parse and whole episodes stay under ~1000 characters", () => {
    for (const t of shopTasks("train")) {
      for (const out of t.goldActOutputs.flat()) expect(parseActOutput(out).kind).not.toBe("error");
      const chars = t.reference!.reduce((s, m) => s + m.content.length + JSON.stringify(m.tool_calls ?? []).length, 0);
      expect(chars).toBeLessThan(1000);
    }
  });

  it("sampling is deterministic per seed and stays in the split", () => {
    const a = generateShopInstances(3, 20).map((t) => t.id);
    expect(generateShopInstances(3, 20).map((t) => t.id)).toEqual(a);
    expect(generateShopInstances(4, 20).map((t) => t.id)).not.toEqual(a);
    expect(new Set(a).size).toBe(20);
    const test = new Set(shopTasks("test").map((t) => t.id));
    for (const t of generateShopInstances(9, 30, "test")) expect(test.has(t.id)).toBe(true);
  });
});

describe("generateTrainingTranscripts", () => {
  it("is deterministic, returns count rows, and completions parse for their role", () => {
    const rows = generateTrainingTranscripts(1, 50);
    expect(rows).toHaveLength(50);
    expect(generateTrainingTranscripts(1, 50)).toEqual(rows);
    expect(rows.some((r) => r.role === "act")).toBe(true);
    expect(rows.some((r) => r.role === "rehearse")).toBe(true);
    for (const r of rows) {
      if (r.role === "act") {
        expect(r.tools?.length).toBe(4);
        expect(parseActOutput(r.completion).kind).not.toBe("error");
      } else {
        expect(r.tools).toBeUndefined();
        const parsed = parseRehearseOutput(r.completion);
        expect(parsed.ok).toBe(true);
        expect(r.messages[0].role).toBe("system");
        expect(r.messages[1].content).toMatch(/^tools: get_item,add_to_cart,remove_from_cart,checkout/);
      }
    }
  });

  it("a two-turn episode replays the user turn and shows earlier calls to the rehearse role", () => {
    const task = shopTasks("train").find((t) => t.template === "cart_checkout")!;
    const rows = goldEpisodeTranscripts(task);
    expect(rows.map((r) => r.role)).toEqual(["act", "rehearse", "act", "act", "rehearse", "act"]);
    const secondTurnAct = rows[3];
    expect(secondTurnAct.messages.at(-1)).toEqual({ role: "user", content: "Thanks, please check out." });
    const checkoutRehearse = rows[4];
    expect(checkoutRehearse.messages[1].content).toContain("past:\nadd_to_cart");
    expect(checkoutRehearse.messages[1].content).toContain("call: checkout {}");
    expect(JSON.parse(parseRehearseOutput(checkoutRehearse.completion).content)).toMatchObject({ order: "O1" });
  });
});

describe("builtin domain registry", async () => {
  const { builtinDomain } = await import("../builtin");
  it("resolves builtin:shop and rejects unknown names", () => {
    const d = builtinDomain("builtin:shop");
    expect(d.sample(1, 3, "test").every((t) => d.byId(t.id)?.id === t.id)).toBe(true);
    expect(() => builtinDomain("builtin:nope")).toThrow(/unknown built-in domain "nope"/);
  });
});

describe("quickstart response budget", () => {
  it("fits every gold act and rehearse output of the training split", () => {
    const budget = { act: quickstartPreset.sampling!.act!.maxTokens!, rehearse: quickstartPreset.sampling!.rehearse!.maxTokens! };
    // A budget shorter than a gold output caps the task's reward however well the model learns
    // (160 tokens cut the second tool call of every compare task).
    const rows = shopTasks("train").flatMap((t) => goldEpisodeTranscripts(t));
    expect(rows.length).toBeGreaterThan(300);
    for (const row of rows) {
      expect(renderCompletion(row.completion).length, `${row.role} output of ${row.completion.slice(0, 60)}`).toBeLessThanOrEqual(budget[row.role]);
    }
  });
});
