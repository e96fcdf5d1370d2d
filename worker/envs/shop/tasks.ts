/**
 * Seeded task generator for the shop domain. The task space (template × items × quantity ×
 * phrasing) is enumerated once and split deterministically into disjoint train and test sets;
 * `generateShopInstances` samples from one split with a seeded PRNG.
 */
import type { ChatMessage } from "../../engine/io";
import { assistantMessageFor, toolMessage } from "../../engine/messages";
import { parseActOutput } from "../../engine/parsers";
import type { ChecklistItem, ProgrammaticCheck, TaskInstance } from "../../engine/types";
import { CATALOGUE, MAX_QTY, SHOP_TOOLS, ShopWorld, catalogueItem, shopEnvironment } from "./world";
import { mulberry32 } from "../../../lib/random";

export const SHOP_SYSTEM_PROMPT = "You are a shop assistant. Use the tools.";
export const SHOP_DATA_SOURCE = "builtin:shop";

/** A shop task: the instance plus the gold act outputs, one list per user turn. */
export interface ShopTask extends TaskInstance {
  template: string;
  /** goldActOutputs[turn] = raw act outputs of that turn, the last one being the final reply. */
  goldActOutputs: string[][];
}

// ---------------------------------------------------------------------------------------------
// Small deterministic helpers
// ---------------------------------------------------------------------------------------------

/** FNV-1a hash of a string, for split assignment that does not depend on enumeration order. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function call(name: string, args: Record<string, unknown>, think?: string): string {
  const block = `\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  return think ? `<think>${think}</think>${block}` : block;
}

function item(
  id: string,
  focus: ChecklistItem["focus_on"],
  question: string,
  weight: number,
  check: ProgrammaticCheck,
  required = false,
): ChecklistItem {
  return {
    id,
    question,
    focus_on: focus,
    pass_condition: question,
    failure_examples: [],
    evidence: [],
    weight,
    required_for_next_turn: required,
    check,
  };
}

const calledItem = (id: string, name: string, args: Record<string, unknown>, weight: number, required = false) =>
  item(id, "assistant.tool_calls", `Called ${name} with ${JSON.stringify(args)}?`, weight, { type: "tool_called", name, args }, required);
const replyItem = (id: string, all: string[], weight: number) =>
  item(id, "assistant.content.user_visible_reply", `Reply mentions ${all.join(" and ")}?`, weight, { type: "reply_contains", all });
const stateItem = (id: string, path: string[], value: unknown, weight: number) =>
  item(id, "tool.content", `World has ${path.join(".")} = ${JSON.stringify(value)}?`, weight, { type: "state_equals", path, value });

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

interface TaskSpec {
  key: string;
  template: string;
  userMessages: string[];
  goldActOutputs: string[][];
  checklist: ChecklistItem[][];
}

function priceTask(name: string, phrasing: number): TaskSpec {
  const c = catalogueItem(name);
  const ask = phrasing === 0 ? `How much is the ${name}?` : `What does a ${name} cost?`;
  return {
    key: `price-${name}-${phrasing}`,
    template: "price",
    userMessages: [ask],
    goldActOutputs: [[call("get_item", { item: name }, "look up price"), `The ${name} costs $${c.price}.`]],
    checklist: [[calledItem("c0", "get_item", { item: name }, 0.5, true), replyItem("c1", [`$${c.price}`], 0.5)]],
  };
}

function stockTask(name: string, phrasing: number): TaskSpec {
  const c = catalogueItem(name);
  const ask = phrasing === 0 ? `Is the ${name} in stock?` : `Do you have any ${name} left?`;
  const reply = c.stock > 0 ? `Yes, ${c.stock} ${name} in stock.` : `Sorry, the ${name} is out of stock.`;
  const mention = c.stock > 0 ? `${c.stock}` : "out of stock";
  return {
    key: `stock-${name}-${phrasing}`,
    template: "stock",
    userMessages: [ask],
    goldActOutputs: [[call("get_item", { item: name }, "check stock"), reply]],
    checklist: [[calledItem("c0", "get_item", { item: name }, 0.5, true), replyItem("c1", [mention], 0.5)]],
  };
}

function buyTask(name: string, qty: number, phrasing: number): TaskSpec {
  const total = catalogueItem(name).price * qty;
  const ask = phrasing === 0 ? `Please buy ${qty} ${name} for me.` : `I want to order ${qty} ${name}.`;
  return {
    key: `buy-${name}-${qty}-${phrasing}`,
    template: "buy",
    userMessages: [ask],
    goldActOutputs: [
      [call("add_to_cart", { item: name, qty }, "add then pay"), call("checkout", {}), `Done! Order O1, total $${total}.`],
    ],
    checklist: [
      [
        calledItem("c0", "add_to_cart", { item: name, qty }, 0.3, true),
        calledItem("c1", "checkout", {}, 0.2),
        stateItem("c2", ["orders", "0", "items"], { [name]: qty }, 0.3),
        replyItem("c3", [`$${total}`], 0.2),
      ],
    ],
  };
}

function compareTask(a: string, b: string, phrasing: number): TaskSpec {
  const pa = catalogueItem(a).price;
  const pb = catalogueItem(b).price;
  const [cheap, price] = pa < pb ? [a, pa] : [b, pb];
  const ask = phrasing === 0 ? `Which is cheaper, ${a} or ${b}?` : `Is ${a} or ${b} cheaper?`;
  return {
    key: `compare-${a}-${b}-${phrasing}`,
    template: "compare",
    userMessages: [ask],
    goldActOutputs: [
      [
        `<think>check both</think>${call("get_item", { item: a })}${call("get_item", { item: b })}`,
        `The ${cheap} is cheaper at $${price}.`,
      ],
    ],
    checklist: [
      [
        calledItem("c0", "get_item", { item: a }, 0.25, true),
        calledItem("c1", "get_item", { item: b }, 0.25),
        replyItem("c2", [cheap, `$${price}`], 0.5),
      ],
    ],
  };
}

function cartThenCheckoutTask(name: string, qty: number, phrasing: number): TaskSpec {
  const total = catalogueItem(name).price * qty;
  const ask = phrasing === 0 ? `Add ${qty} ${name} to my cart.` : `Put ${qty} ${name} in my cart.`;
  return {
    key: `cart-${name}-${qty}-${phrasing}`,
    template: "cart_checkout",
    userMessages: [ask, "Thanks, please check out."],
    goldActOutputs: [
      [call("add_to_cart", { item: name, qty }), `Added. Your cart total is $${total}.`],
      [call("checkout", {}), `Order O1 placed, total $${total}.`],
    ],
    checklist: [
      [calledItem("c0", "add_to_cart", { item: name, qty }, 0.5, true), replyItem("c1", [`$${total}`], 0.5)],
      [
        calledItem("c2", "checkout", {}, 0.4, true),
        stateItem("c3", ["orders", "0", "total"], total, 0.3),
        replyItem("c4", ["O1"], 0.3),
      ],
    ],
  };
}

/** Every task of the domain, in a fixed order. */
function enumerateTaskSpecs(): TaskSpec[] {
  const specs: TaskSpec[] = [];
  for (const phrasing of [0, 1]) {
    for (const c of CATALOGUE) {
      specs.push(priceTask(c.item, phrasing), stockTask(c.item, phrasing));
      for (let qty = 1; qty <= Math.min(3, c.stock, MAX_QTY); qty++) {
        specs.push(buyTask(c.item, qty, phrasing), cartThenCheckoutTask(c.item, qty, phrasing));
      }
      for (const d of CATALOGUE) {
        if (d.item !== c.item && d.price !== c.price) specs.push(compareTask(c.item, d.item, phrasing));
      }
    }
  }
  return specs;
}

/** Roughly one task in five is held out for testing; assignment depends only on the task key. */
export function shopSplitOf(key: string): "train" | "test" {
  return hash(key) % 5 === 0 ? "test" : "train";
}

/** Replay gold act outputs through the parser and a real world to get the reference conversation. */
function referenceConversation(initial: ChatMessage[], spec: TaskSpec, id: string): ChatMessage[] {
  const world = new ShopWorld();
  const messages = [...initial];
  let assistantTurns = 0;
  spec.goldActOutputs.forEach((outputs, turn) => {
    if (turn > 0) messages.push({ role: "user", content: spec.userMessages[turn] });
    for (const output of outputs) {
      const parsed = parseActOutput(output);
      if (parsed.kind === "error") throw new Error(`gold output of ${spec.key} does not parse: ${parsed.code}`);
      messages.push(assistantMessageFor(parsed, id, assistantTurns));
      assistantTurns++;
      if (parsed.kind === "tool_calls") {
        for (const c of parsed.calls) messages.push(toolMessage(c.name, world.execute(c.name, c.argumentsJson)));
      }
    }
  });
  return messages;
}

function toTask(spec: TaskSpec): ShopTask {
  const id = `shop-${spec.key}`;
  const messages: ChatMessage[] = [
    { role: "system", content: SHOP_SYSTEM_PROMPT },
    { role: "user", content: spec.userMessages[0] },
  ];
  return {
    id,
    dataSource: SHOP_DATA_SOURCE,
    template: spec.template,
    messages,
    tools: SHOP_TOOLS,
    followUpUserMessages: spec.userMessages.slice(1),
    checklists: [spec.checklist],
    reference: referenceConversation(messages, spec, id),
    environment: shopEnvironment,
    rehearsePromptStyle: "compact",
    goldActOutputs: spec.goldActOutputs,
  };
}

let cachedTasks: { train: ShopTask[]; test: ShopTask[] } | undefined;

/** All tasks of one split, in a fixed order. */
export function shopTasks(split: "train" | "test"): ShopTask[] {
  if (!cachedTasks) {
    const all = enumerateTaskSpecs().map(toTask);
    cachedTasks = {
      train: all.filter((t) => shopSplitOf(t.id.slice(5)) === "train"),
      test: all.filter((t) => shopSplitOf(t.id.slice(5)) === "test"),
    };
  }
  return cachedTasks[split];
}

/** `count` instances sampled (with replacement once the split is exhausted) from a split, deterministic per seed. */
export function generateShopInstances(seed: number, count: number, split: "train" | "test" = "train"): ShopTask[] {
  const pool = shopTasks(split);
  const rand = mulberry32(seed);
  const out: ShopTask[] = [];
  let order: ShopTask[] = [];
  while (out.length < count) {
    if (order.length === 0) {
      // A fresh seeded shuffle of the pool each pass, so small counts see no duplicates.
      order = [...pool];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
    }
    out.push(order.pop()!);
  }
  return out;
}

/** Look up one task by id in either split. */
export function shopTaskById(id: string): ShopTask | undefined {
  return shopTasks("train").find((t) => t.id === id) ?? shopTasks("test").find((t) => t.id === id);
}
