/**
 * What the agent and the user simulator are told (spec §5, §7, §8): retail's 15 tool schemas, the agent
 * system prompt (instructions + verbatim policy) and the user simulator prompt (guidelines + rendered
 * scenario, the same for every domain); the airline and telecom tools are in tool-schemas.ts. In lib/
 * because the launch check (lib/launch-check) measures these prompts on the server as the worker's
 * environment (worker/envs/tau2) sends them.
 */
import type { Tau2Domain, Tau2Task } from "./tasks";
import { AIRLINE_TOOL_SCHEMAS, TELECOM_TOOL_SCHEMAS, TELECOM_USER_TOOL_SCHEMAS, type Tau2ToolSchema as ToolSchema } from "./tool-schemas";

export const GREETING = "Hi! How can I help you today?";
export const STOP_TOKENS = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"] as const;
export type StopToken = (typeof STOP_TOKENS)[number];

type ParamType = "string" | "array";
interface ParamDoc {
  name: string;
  type: ParamType;
  description: string;
}

const titleCase = (name: string) =>
  name
    .split("_")
    .map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w))
    .join(" ");

const str = (name: string, description: string): ParamDoc => ({ name, type: "string", description });
const list = (name: string, description: string): ParamDoc => ({ name, type: "array", description });

const ORDER_ID = str("order_id", "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.");
const PAYMENT_ID = str(
  "payment_method_id",
  "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.",
);
const ITEM_IDS = list("item_ids", "The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.");
const NEW_ITEM_IDS = list(
  "new_item_ids",
  "The new item ids to be changed to, each such as '1008292230'. The i-th new item must be a different variant of the same product as the i-th item in item_ids.",
);
const addressParams = [
  str("address1", "The first line of the address, such as '123 Main St'."),
  str("address2", "The second line of the address, such as 'Apt 1' or ''."),
  str("city", "The city, such as 'San Francisco'."),
  str("state", "The state, such as 'CA'."),
  str("country", "The country, such as 'USA'."),
  str("zip", "The zip code, such as '12345'."),
];

/** Tool purposes and parameters in the fixed order of spec §5 (descriptions paraphrased). */
const TOOL_DOCS: { name: string; description: string; params: ParamDoc[] }[] = [
  {
    name: "calculate",
    description: "Calculate the result of a mathematical expression; the result is rounded to 2 decimal places.",
    params: [str("expression", "The expression to calculate, such as '2 + 2'. It may contain numbers, operators (+, -, *, /), parentheses and spaces.")],
  },
  {
    name: "cancel_pending_order",
    description:
      "Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled.\n\nThe agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process.",
    params: [ORDER_ID, str("reason", "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.")],
  },
  {
    name: "exchange_delivered_order_items",
    description:
      "Exchange items in a delivered order to new items of the same product type. For a delivered order, return or exchange can be only done once by the agent.\n\nThe agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [ORDER_ID, { ...ITEM_IDS, description: "The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list." }, NEW_ITEM_IDS, PAYMENT_ID],
  },
  {
    name: "find_user_id_by_name_zip",
    description:
      "Find user id by first name, last name, and zip code. If the user is not found, the function will return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.",
    params: [str("first_name", "The first name of the customer, such as 'John'."), str("last_name", "The last name of the customer, such as 'Doe'."), str("zip", "The zip code of the customer, such as '12345'.")],
  },
  {
    name: "find_user_id_by_email",
    description: "Find user id by email. If the user is not found, the function will return an error message.",
    params: [str("email", "The email of the user, such as 'something@example.com'.")],
  },
  { name: "get_order_details", description: "Get the status and details of an order.", params: [ORDER_ID] },
  {
    name: "get_product_details",
    description: "Get the inventory details of a product.",
    params: [str("product_id", "The product id, such as '6086499569'. Be careful the product id is different from the item id.")],
  },
  { name: "get_user_details", description: "Get the details of a user, including their orders.", params: [str("user_id", "The user id, such as 'sara_doe_496'.")] },
  {
    name: "list_all_product_types",
    description: "List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store.",
    params: [],
  },
  {
    name: "modify_pending_order_address",
    description: "Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [ORDER_ID, ...addressParams],
  },
  {
    name: "modify_pending_order_items",
    description:
      "Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [ORDER_ID, ITEM_IDS, NEW_ITEM_IDS, PAYMENT_ID],
  },
  {
    name: "modify_pending_order_payment",
    description: "Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [ORDER_ID, { ...PAYMENT_ID, description: "The payment method id to pay the order, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details." }],
  },
  {
    name: "modify_user_address",
    description: "Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [str("user_id", "The user id, such as 'sara_doe_496'."), ...addressParams],
  },
  {
    name: "return_delivered_order_items",
    description:
      "Return some items of a delivered order.\n\nThe order status will be changed to 'return requested'. The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up email for how and where to return the item.",
    params: [
      ORDER_ID,
      { ...ITEM_IDS, description: "The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list." },
      { ...PAYMENT_ID, description: "The payment method id to receive the refund, such as 'gift_card_0000000' or 'credit_card_0000000'. It should be either the original payment method or a gift card; refunds to a gift card are added immediately, others take 5-7 business days." },
    ],
  },
  {
    name: "transfer_to_human_agents",
    description:
      "Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or the user's issue cannot be resolved by the agent with the available tools.",
    params: [str("summary", "A summary of the user's issue.")],
  },
];

function toSchema(doc: (typeof TOOL_DOCS)[number]): ToolSchema {
  const properties: Record<string, unknown> = {};
  for (const p of doc.params) {
    properties[p.name] =
      p.type === "array"
        ? { description: p.description, items: { type: "string" }, title: titleCase(p.name), type: "array" }
        : { description: p.description, title: titleCase(p.name), type: "string" };
  }
  const parameters: ToolSchema["function"]["parameters"] =
    doc.params.length === 0
      ? { properties, title: "parameters", type: "object" }
      : { properties, required: doc.params.map((p) => p.name), title: "parameters", type: "object" };
  return { type: "function", function: { name: doc.name, description: doc.description, parameters } };
}

/** The 15 retail tools as OpenAI function schemas, in the original order. */
export function retailToolSchemas(): ToolSchema[] {
  return TOOL_DOCS.map(toSchema);
}

const AGENT_INSTRUCTIONS = [
  "You are a customer service agent. Help the user according to the <policy> below.",
  "On each turn you may either send a message to the user or make a tool call, but never both at once.",
  "",
  "Be helpful, always follow the policy, and always produce valid JSON.",
].join("\n");

/** The agent's single system message: instructions, then policy.md verbatim (spec §7). */
export function agentSystemPrompt(policy: string): string {
  return `<instructions>\n${AGENT_INSTRUCTIONS}\n</instructions>\n<policy>\n${policy}\n</policy>`;
}

/** Python textwrap.indent(text, "\t"): prefix every non-blank line. */
function indent(text: string): string {
  return text
    .split(/(?<=\n)/)
    .map((line) => (line.trim() ? "\t" + line : line))
    .join("");
}

/** The rendered user scenario (spec §8). */
export function renderScenario(task: Tau2Task): string {
  const ins = task.user_scenario.instructions;
  const lines = [`Domain: ${ins.domain}`, `Reason for call:\n${indent(ins.reason_for_call)}`];
  if (ins.known_info != null) lines.push(`Known info:\n${indent(ins.known_info)}`);
  if (ins.unknown_info != null) lines.push(`Unknown info:\n${indent(ins.unknown_info)}`);
  lines.push(`Task instructions:\n${indent(ins.task_instructions)}`);
  const persona = task.user_scenario.persona;
  const personaPart = persona != null ? `Persona:\n${indent(persona)}\n` : "";
  return `${personaPart}Instructions:\n${indent(lines.join("\n"))}`;
}

/** The user simulator's system prompt: guidelines, an empty line, then the <scenario> block. */
export function userSystemPrompt(guidelines: string, task: Tau2Task): string {
  return `${guidelines}\n\n<scenario>\n${renderScenario(task)}\n</scenario>`;
}

/** The stop token contained in a user message, if any (a substring anywhere ends the episode). */
export function findStopToken(text: string): StopToken | undefined {
  return STOP_TOKENS.find((t) => text.includes(t));
}

/**
 * tau2-bench v0.2.0's own agent instruction (`agent/llm_agent.py`), used for the airline and telecom
 * domains; retail keeps the reworded instruction it has always had (agentSystemPrompt above).
 */
const UPSTREAM_AGENT_INSTRUCTION = [
  "You are a customer service agent that helps the user according to the <policy> provided below.",
  "In each turn you can either:",
  "- Send a message to the user.",
  "- Make a tool call.",
  "You cannot do both at the same time.",
  "",
  "Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.",
].join("\n");

/** The agent's system message for a domain: retail's as before, upstream's for airline and telecom. */
export function agentSystemPromptFor(domain: Tau2Domain, policy: string): string {
  if (domain === "retail") return agentSystemPrompt(policy);
  return `<instructions>\n${UPSTREAM_AGENT_INSTRUCTION}\n</instructions>\n<policy>\n${policy}\n</policy>`;
}

/** The agent's tools of a domain, in upstream's order. */
export function agentToolSchemasFor(domain: Tau2Domain): ToolSchema[] {
  return domain === "retail" ? retailToolSchemas() : domain === "airline" ? AIRLINE_TOOL_SCHEMAS : TELECOM_TOOL_SCHEMAS;
}

/** The tools the simulated user has on their own device (telecom), or null. */
export function userToolSchemasFor(domain: Tau2Domain): ToolSchema[] | null {
  return domain === "telecom" ? TELECOM_USER_TOOL_SCHEMAS : null;
}
