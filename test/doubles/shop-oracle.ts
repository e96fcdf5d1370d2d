/**
 * TEST DOUBLE — a deterministic "oracle" policy for the shop domain: acts with the gold outputs of the task and
 * rehearses perfectly by replaying the compact prompt's past calls in a fresh world. Used by tests
 * and benchmarks to exercise the engine end-to-end with no model. Token ids are character codes.
 */
import type { GenerateRequest, GenerateResult, PolicyClient } from "../../worker/engine/io";
import { COMPACT_REHEARSE_SYSTEM_PROMPT } from "../../worker/engine/prompts";
import { shopTasks, type ShopTask } from "../../worker/envs/shop/tasks";
import { rehearseCompletion } from "../../worker/envs/shop/transcripts";
import { ShopWorld } from "../../worker/envs/shop/world";

const charTokens = (text: string) => Array.from(text, (c) => c.codePointAt(0) ?? 0);

export function fakeGeneration(promptText: string, text: string): GenerateResult {
  const tokens = charTokens(text);
  return { text, promptTokens: charTokens(promptText), tokens, logprobs: tokens.map(() => -0.1), finishReason: "stop" };
}

let taskByFirstUser: Map<string, ShopTask> | undefined;
function taskFor(firstUser: string): ShopTask | undefined {
  if (!taskByFirstUser) {
    taskByFirstUser = new Map();
    for (const t of [...shopTasks("train"), ...shopTasks("test")]) taskByFirstUser.set(t.messages[1].content, t);
  }
  return taskByFirstUser.get(firstUser);
}

/** The gold act output for a conversation, or a polite fallback reply. */
export function oracleAct(req: GenerateRequest): string {
  const firstUser = req.messages.find((m) => m.role === "user")?.content ?? "";
  const task = taskFor(firstUser);
  if (!task) return "Sorry, I cannot help with that.";
  const assistantSoFar = req.messages.filter((m) => m.role === "assistant").length;
  return task.goldActOutputs.flat()[assistantSoFar] ?? "Anything else?";
}

/** The true tool response for a compact rehearse prompt (past calls replayed, then the current call). */
export function oracleRehearse(req: GenerateRequest): string {
  const user = req.messages.find((m) => m.role === "user")?.content ?? "";
  const world = new ShopWorld();
  let result = '{"error_tool_call":{"code":"UNKNOWN","message":"no call"}}';
  for (const line of user.split("\n")) {
    const isCall = line.startsWith("call: ");
    const body = isCall ? line.slice(6) : line.includes(" -> ") ? line : undefined;
    if (body === undefined) continue;
    const space = body.indexOf(" ");
    const name = body.slice(0, space);
    const args = isCall ? body.slice(space + 1) : body.slice(space + 1, body.indexOf(" -> "));
    const out = world.execute(name, args);
    if (isCall) result = out;
  }
  return rehearseCompletion(result);
}

export interface OraclePolicyOptions {
  /** Simulated latency per generation. */
  delayMs?: number;
  /** Replace outputs, e.g. to inject errors: return undefined to keep the oracle output. */
  override?: (req: GenerateRequest, oracle: string) => string | undefined;
}

export function createShopOraclePolicy(options: OraclePolicyOptions = {}): PolicyClient & { calls: number } {
  const client = {
    calls: 0,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      client.calls++;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const isCompactRehearse = req.role === "rehearse" && req.messages[0]?.content === COMPACT_REHEARSE_SYSTEM_PROMPT;
      const oracle = req.role === "act" ? oracleAct(req) : isCompactRehearse ? oracleRehearse(req) : '\n<execution_result>\n{"ok":true}\n</execution_result>';
      const text = options.override?.(req, oracle) ?? oracle;
      const promptText = req.messages.map((m) => m.content).join("\n");
      return fakeGeneration(promptText, text);
    },
  };
  return client;
}
