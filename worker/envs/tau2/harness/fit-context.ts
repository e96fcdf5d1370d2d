/**
 * Fitting tau2 prompts into a small model's context. The retail policy alone is ~10 k characters, far
 * beyond a tiny model's context (the embedded node has 1024 byte tokens), and a prompt that fills the
 * context yields an empty "length" generation. So before sampling, the prompt is shortened:
 *   1. the oldest conversation messages are dropped (the latest one always stays),
 *   2. the system message (policy) keeps as much of its head as fits, with a marker,
 *   3. if the latest message alone is still too long, its start is cut (left-trim).
 * Prompts that fit are passed through untouched, so large models see the exact tau2 context.
 */
import type { ChatMessage, GenerateRequest, GenerateResult, PolicyClient } from "../../../engine/io";
import type { ContextAwarePolicy } from "../../environment";

export const TRUNCATION_MARKER = "\n[… truncated to fit the model's context]";

/** Token length of a rendered prompt. */
export type PromptLength = (messages: ChatMessage[]) => number;

/** Largest n in [0, max] with ok(n) true, assuming ok is monotone (true up to some n); -1 when ok(0) fails. */
function largest(max: number, ok: (n: number) => boolean): number {
  if (!ok(0)) return -1;
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The messages, shortened as described above so that `length(messages) <= budget` whenever possible. */
export function fitMessagesToContext(messages: ChatMessage[], length: PromptLength, budget: number): ChatMessage[] {
  if (length(messages) <= budget) return messages;
  const system = messages[0]?.role === "system" ? messages[0] : undefined;
  let rest = system ? messages.slice(1) : messages.slice();
  const withSystem = (content: string | undefined, tail: ChatMessage[]) => (content === undefined ? tail : [{ ...system!, content }, ...tail]);
  const bareSystem = system ? TRUNCATION_MARKER.trimStart() : undefined;

  // 1. Drop the oldest conversation messages while even a bare system message does not fit.
  while (rest.length > 1 && length(withSystem(bareSystem, rest)) > budget) rest = rest.slice(1);

  // 2. Keep the longest head of the system message that fits.
  if (system) {
    const full = system.content;
    const keep = largest(full.length, (n) => length(withSystem(n === full.length ? full : full.slice(0, n) + TRUNCATION_MARKER, rest)) <= budget);
    if (keep >= 0) return withSystem(keep === full.length ? full : full.slice(0, keep) + TRUNCATION_MARKER, rest);
  }

  // 3. The latest message alone is too long: keep its end.
  const last = rest[rest.length - 1];
  if (!last) return withSystem(bareSystem, rest);
  const head = rest.slice(0, -1);
  const keep = largest(last.content.length, (n) => length(withSystem(bareSystem, [...head, { ...last, content: last.content.slice(last.content.length - n) }])) <= budget);
  return withSystem(bareSystem, [...head, { ...last, content: last.content.slice(last.content.length - Math.max(keep, 0)) }]);
}

/**
 * Wraps a policy so every prompt leaves room for the response: the prompt budget is the context minus
 * min(maxTokens, half the context). Without a known context length the policy is returned unchanged.
 */
export function contextFittingPolicy(policy: ContextAwarePolicy): PolicyClient {
  const context = policy.contextLength;
  if (context === null) return policy;
  return {
    generate(req: GenerateRequest): Promise<GenerateResult> {
      const budget = context - Math.min(req.sampling.maxTokens, Math.floor(context / 2));
      const messages = fitMessagesToContext(req.messages, (m) => policy.promptTokens(m, req.tools).length, budget);
      return policy.generate(messages === req.messages ? req : { ...req, messages });
    },
  };
}
