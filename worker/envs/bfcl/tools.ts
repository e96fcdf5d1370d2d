/**
 * What the model sees of a task's tools, turn by turn: the function documents of the involved classes
 * (in `involved_classes` order, as upstream's `populate_test_cases_with_predefined_functions`), minus
 * miss_func's held-out functions until their turn, when they are added back and the scripted user
 * message is upstream's "I have updated some more functions…". Also OpenAI-style tool schemas built
 * the way upstream's `convert_to_tool` does.
 */
import { pyJsonDumpsValue, fromPlainJson } from "../../../lib/python/values";
import { BfclDataError, loadFunctionDocs, type BfclClassName, type BfclTask, type FunctionDoc } from "./data";

/** Upstream's DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC. */
export const HOLDOUT_USER_MESSAGE = "I have updated some more functions you can choose from. What about now?";

/** Upstream's MAXIMUM_STEP_LIMIT: a turn is force-quit after more steps than this. */
export const MAXIMUM_STEP_LIMIT = 20;

export interface TurnTools {
  /** Every function the model may call at this turn (documents in upstream's order). */
  functions: FunctionDoc[];
  /** Functions revealed at this turn (miss_func), empty otherwise. */
  revealed: FunctionDoc[];
}

/** Function documents of the involved classes, in order. */
export function functionDocsFor(classes: readonly BfclClassName[], dataDir?: string): FunctionDoc[] {
  return classes.flatMap((c) => loadFunctionDocs(c, dataDir));
}

/** The function list at the start of the task and the held-out documents per turn. */
export function initialTools(task: BfclTask, dataDir?: string): { functions: FunctionDoc[]; holdout: Map<number, FunctionDoc[]> } {
  const functions = [...functionDocsFor(task.involvedClasses, dataDir)];
  const holdout = new Map<number, FunctionDoc[]>();
  for (const [turn, names] of [...task.missedFunctions].sort((a, b) => a[0] - b[0])) {
    const docs: FunctionDoc[] = [];
    for (const name of names) {
      const i = functions.findIndex((f) => f.name === name);
      if (i < 0) throw new BfclDataError(`task ${task.id}: missed_function names ${name}, which no involved class (${task.involvedClasses.join(", ")}) documents`);
      docs.push(functions[i]);
      functions.splice(i, 1);
    }
    holdout.set(turn, docs);
  }
  return { functions, holdout };
}

/** The tools available at each turn (holdouts added at their turn and kept afterwards). */
export function toolsPerTurn(task: BfclTask, dataDir?: string): TurnTools[] {
  const { functions, holdout } = initialTools(task, dataDir);
  const current = [...functions];
  return task.question.map((_, turn) => {
    const revealed = holdout.get(turn) ?? [];
    current.push(...revealed);
    return { functions: [...current], revealed };
  });
}

/** The scripted user messages of a turn (a holdout turn has none upstream; the fixed message replaces them). */
export function userMessagesForTurn(task: BfclTask, turn: number): { role: string; content: string }[] {
  const messages = task.question[turn];
  if (task.missedFunctions.has(turn)) {
    if (messages.length !== 0) throw new BfclDataError(`task ${task.id}: holdout turn ${turn} should not have user messages`);
    return [{ role: "user", content: HOLDOUT_USER_MESSAGE }];
  }
  return messages;
}

// ---------------------------------------------------------------------------------------------------------------
// Tool schemas (upstream's convert_to_tool with GORILLA_TO_OPENAPI)

const GORILLA_TO_OPENAPI: Record<string, string> = {
  integer: "integer", number: "number", float: "number", string: "string", boolean: "boolean", bool: "boolean", array: "array",
  list: "array", dict: "object", object: "object", tuple: "array", any: "string", byte: "integer", short: "integer", long: "integer",
  double: "number", char: "string", ArrayList: "array", Array: "array", HashMap: "object", Hashtable: "object", Queue: "array",
  Stack: "array", Any: "string", String: "string", Bigint: "integer",
};

type Json = Record<string, unknown>;

function castToOpenAiType(properties: Record<string, Json>): Record<string, Json> {
  for (const [key, value] of Object.entries(properties)) {
    if (!("type" in value)) properties[key].type = "string";
    else {
      const varType = value.type as string;
      if (varType === "float") {
        properties[key].format = "float";
        properties[key].description = `${value.description ?? ""} This is a float type value.`;
      }
      properties[key].type = GORILLA_TO_OPENAPI[varType] ?? "string";
    }
    const prop = properties[key];
    if (prop.type === "array" || prop.type === "object") {
      if (prop.properties) prop.properties = castToOpenAiType(prop.properties as Record<string, Json>);
      else if (prop.items) {
        const items = prop.items as Json;
        items.type = GORILLA_TO_OPENAPI[items.type as string];
        if (items.type === "array" && items.items) (items.items as Json).type = GORILLA_TO_OPENAPI[(items.items as Json).type as string];
        else if (items.type === "object" && items.properties) items.properties = castToOpenAiType(items.properties as Record<string, Json>);
      }
    }
  }
  return properties;
}

export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: Json };
}

/**
 * OpenAI chat-completions tools for function documents: parameter types mapped as upstream
 * (`dict` → `object`, `float` → `number` with `format: float`), the response schema appended to the
 * description (upstream does so for the styles whose API has no response field).
 */
export function toOpenAiTools(docs: readonly FunctionDoc[]): OpenAiTool[] {
  return docs.map((doc) => {
    const item = structuredClone(doc) as FunctionDoc & Json;
    const parameters = { ...(item.parameters as Json), type: "object" } as Json;
    parameters.properties = castToOpenAiType((parameters.properties ?? {}) as Record<string, Json>);
    let description = item.description;
    if (item.response !== undefined) description += ` The response field has the following schema: ${pyJsonDumpsValue(fromPlainJson(item.response))}`;
    return { type: "function", function: { name: item.name, description, parameters } };
  });
}
