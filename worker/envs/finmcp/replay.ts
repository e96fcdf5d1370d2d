/**
 * The replay back end of FinMCP-Bench (`finmcp.environment: replay`): NOT upstream's protocol. Upstream calls the live
 * Qieman MCP server; a team without access to it can still run the sample loop, with each call answered by the
 * recorded output of the matching gold call of the same sample — same tool name and the same arguments (parsed JSON
 * compared by value, key order ignored) — and every other call by a clear "no recorded output". Numbers made this way
 * are labelled as a replay wherever they appear.
 *
 * A gold call's recorded output is the tool message naming its id (`tool_call_id`), else the tool messages after its
 * assistant message taken in order (multi-turn copies also carry `name`). When a call matches several gold calls, the
 * first one this episode has not used answers (a repeated call gets the next recording), then the first one again.
 */
import type { FinmcpSample } from "../../../lib/finmcp/data";
import { deepEqual } from "../../engine/fidelity";
import type { ToolEnvironment, ToolOutcome } from "../../engine/types";

export interface RecordedCall {
  name: string;
  /** The gold call's arguments, parsed (undefined when they are not JSON: such a call never matches). */
  args: unknown;
  /** The recorded output, or null when the gold trajectory has none for it. */
  output: string | null;
}

export const NO_RECORDED_OUTPUT = "no recorded output";

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Every gold call of a sample with its recorded output, in trajectory order. */
export function recordedCalls(sample: FinmcpSample): RecordedCall[] {
  const out: RecordedCall[] = [];
  const messages = sample.messages;
  messages.forEach((m, i) => {
    const calls = m.role === "assistant" ? (m.tool_calls ?? []) : [];
    if (calls.length === 0) return;
    // The tool messages answering this assistant message: the run of tool messages right after it.
    const answers: { id?: string; content: string }[] = [];
    for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++) answers.push({ id: messages[j]!.tool_call_id, content: messages[j]!.content ?? "" });
    calls.forEach((c, k) => {
      const byId = answers.find((a) => a.id !== undefined && a.id === c.id);
      const positional = answers.every((a) => a.id === undefined) ? answers[k] : undefined;
      out.push({ name: c.function.name, args: parse(c.function.arguments), output: (byId ?? positional)?.content ?? null });
    });
  });
  return out;
}

/** The text a call without a recording gets. */
export function noRecordedOutput(name: string, argumentsJson: string): string {
  return `${NO_RECORDED_OUTPUT}: the gold trajectory of this sample has no ${name} call with these arguments (${argumentsJson}); FinMCP replay answers only the recorded gold calls`;
}

/** One episode's replay world over a sample's recorded calls. */
export function replayWorld(recorded: readonly RecordedCall[]): ToolEnvironment & { answered: () => { replayed: number; unmatched: number } } {
  const used = new Set<number>();
  let replayed = 0;
  let unmatched = 0;
  return {
    execute(name: string, argumentsJson: string): ToolOutcome {
      const args = parse(argumentsJson);
      const matches = recorded.flatMap((r, i) => (r.name === name && r.output !== null && args !== undefined && deepEqual(r.args, args) ? [i] : []));
      const pick = matches.find((i) => !used.has(i)) ?? matches[0];
      if (pick === undefined) {
        unmatched++;
        return { content: noRecordedOutput(name, argumentsJson), isError: true };
      }
      used.add(pick);
      replayed++;
      return { content: recorded[pick]!.output!, isError: false };
    },
    snapshot: () => ({ used: [...used].sort((a, b) => a - b) }),
    answered: () => ({ replayed, unmatched }),
  };
}
