/**
 * One episode's world: the task's environment as the orchestrator drives it. The agent's calls arrive
 * as JSON text (`execute`), the user's calls on its own device too (`userCall`); each runs as
 * Environment.get_response. The orchestrator also syncs the tools after every step: a call that raised
 * (and so skipped get_response's sync) is synced before the next call. The world also keeps what the
 * simulated user did with its tools, turn by turn, for the user simulator's own context.
 */
import type { ToolEnvironment, ToolOutcome } from "../../../engine/types";
import { EnvironmentFailure } from "../../../engine/types";
import { fromPlainJson, pyFromJsonText } from "../../../../lib/python/values";
import { pyArgumentsOf } from "../../../../lib/tau2/tasks";
import { errorMessage, type Requestor, type Tau2Environment, type ToolMessage } from "./environment";
import type { TValue } from "./py";

/**
 * A call's tool message as an episode makes it. `argumentsJson` is the model's text: parsed as json.loads
 * parses it (ints and floats apart); text that is not JSON answers with an error. Already-parsed
 * `arguments` (plain JSON values) are used when there is no text.
 */
export function episodeResponse(env: Tau2Environment, name: string, requestor: Requestor, call: { argumentsJson?: string; arguments?: unknown }): ToolMessage {
  let value: TValue;
  if (call.argumentsJson !== undefined) {
    try {
      value = pyFromJsonText(call.argumentsJson) as TValue;
    } catch {
      return { id: "", content: `Error: the arguments of ${name} are not valid JSON`, error: true, requestor };
    }
  } else {
    // A task's own argument dict keeps its Python types (lib/tau2/tasks.ts); other values are plain JSON.
    const a = call.arguments;
    value = (a && typeof a === "object" && !Array.isArray(a) ? pyArgumentsOf({ arguments: a as Record<string, unknown> }) : fromPlainJson(a)) as TValue;
  }
  return env.getResponse({ id: "", name, requestor, arguments: value });
}

/** What the user did with one tool call: its message (text + calls) and the tool messages it got back. */
export interface UserExchange {
  content: string;
  calls: { id: string; name: string; argumentsJson: string }[];
  results: { id: string; content: string; error: boolean }[];
}

export class Tau2World implements ToolEnvironment {
  private pendingSync = false;
  /** The user's tool exchanges before each of its messages (index = the user message's number). */
  readonly userExchanges: UserExchange[][] = [];

  constructor(
    readonly env: Tau2Environment,
    /** Give the engine the tool's own error flag (ToolOutcome) instead of the bare text. */
    private readonly errorFlags = true,
  ) {}

  private run(name: string, requestor: Requestor, argumentsJson: string): ToolMessage {
    if (this.pendingSync) {
      this.pendingSync = false;
      try {
        this.env.domain.sync();
      } catch (e) {
        throw new EnvironmentFailure("SYNC_FAILED", `sync_tools failed: ${errorMessage(e)}`);
      }
    }
    const msg = episodeResponse(this.env, name, requestor, { argumentsJson });
    if (msg.error) this.pendingSync = true;
    return msg;
  }

  execute(name: string, argumentsJson: string): string | ToolOutcome {
    const msg = this.run(name, "assistant", argumentsJson);
    return this.errorFlags ? { content: msg.content, isError: msg.error } : msg.content;
  }

  /** A call the simulated user makes on its own device. */
  userCall(name: string, argumentsJson: string): ToolMessage {
    return this.run(name, "user", argumentsJson);
  }

  snapshot(): unknown {
    const user = this.env.userDbHash();
    return { db_hash: this.env.dbHash(), ...(user !== null ? { user_db_hash: user } : {}) };
  }
}

export const isTau2World = (w: unknown): w is Tau2World => w instanceof Tau2World;
export { fromPlainJson };
