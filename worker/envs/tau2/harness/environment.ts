/**
 * tau2-bench's `Environment` (v0.2.0 `environment/environment.py`) over a domain's toolkits:
 * `make_tool_call` (no sync), `get_response` (the call, then `sync_tools` if it did not raise; content
 * `to_json_str(result)` or `"Error: <message>"`), environment function calls and assertions (each followed
 * by a sync), `set_state` (initialisation data merged in, initialisation actions run, message history
 * replayed and checked, a final sync) and the DB hashes. Construction runs `sync_tools` once.
 */
import { PyDict, PyException, pyEq, pyFromJsonText, type PyValue } from "../../../../lib/python/values";
import type { DomainEnv } from "./domain";
import { toJsonStr, type TValue } from "./py";
import { kwargsOf, typeError } from "./toolkit";

export type Requestor = "assistant" | "user";

export interface EnvFunctionCall {
  env_type: Requestor;
  func_name: string;
  /** Keyword arguments as Python values (ints and floats apart). */
  arguments: PyDict;
}

export interface EnvAssertion extends EnvFunctionCall {
  assert_value: boolean;
  message?: string | null;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The call's arguments as Python values: a dict, or whatever else the caller sent (which fails as `**` does). */
  arguments: TValue;
  requestor: Requestor;
}

export interface ToolMessage {
  id: string;
  content: string;
  error: boolean;
  requestor: Requestor;
}

/** A task's history message as set_state reads it. */
export type HistoryMessage =
  | { role: "system"; content: string | null }
  | { role: "user" | "assistant"; content: string | null; tool_calls?: ToolCall[] | null }
  | { role: "tool"; id: string; content: string | null; requestor: Requestor; error: boolean };

/** `str(e)` of what a tool raised. */
export function errorMessage(e: unknown): string {
  if (e instanceof PyException) return e.pyMessage;
  return e instanceof Error ? e.message : String(e);
}

/** `json.loads(text)`, or the text itself when it is not JSON (set_state's comparison). */
function loadsOrText(text: string | null): PyValue {
  if (text === null) return null;
  try {
    return pyFromJsonText(text);
  } catch {
    return text;
  }
}

export class Tau2Environment {
  constructor(readonly domain: DomainEnv) {
    domain.sync();
  }

  /** `make_tool_call(name, requestor, **arguments)`: the result; throws what the call raises. No sync. */
  makeToolCall(name: string, requestor: Requestor, args: TValue): TValue {
    if (requestor === "assistant" && this.domain.tools.useToolRaw) return this.domain.tools.useToolRaw(name, args);
    const kwargs = kwargsOf("tau2.environment.environment.Environment.make_tool_call()", args);
    if (kwargs.has("tool_name")) throw typeError("Environment.make_tool_call() got multiple values for argument 'tool_name'");
    if (kwargs.has("requestor")) throw typeError("tau2.environment.environment.Environment.make_tool_call() got multiple values for keyword argument 'requestor'");
    if (requestor === "user") {
      if (!this.domain.userTools) throw new PyException("ValueError", "User tools not available");
      return this.domain.userTools.useTool(name, kwargs);
    }
    return this.domain.tools.useTool(name, kwargs);
  }

  /** `get_response(tool_call)`: the call, then sync_tools unless it raised; the tool message. */
  getResponse(call: ToolCall): ToolMessage {
    let resp: TValue;
    let error = false;
    try {
      resp = this.makeToolCall(call.name, call.requestor, call.arguments);
      this.domain.sync();
    } catch (e) {
      resp = `Error: ${errorMessage(e)}`;
      error = true;
    }
    return { id: call.id, content: toJsonStr(resp), error, requestor: call.requestor };
  }

  private toolkitOf(envType: Requestor, name: string) {
    const kit = envType === "user" ? this.domain.userTools : this.domain.tools;
    if (!kit) throw new PyException("AttributeError", `'NoneType' object has no attribute '${name}'`);
    return kit;
  }

  /** `run_env_function_call`: any method of the agent's or the user's toolkit, then sync_tools. */
  runEnvFunctionCall(call: EnvFunctionCall): TValue {
    const res = this.toolkitOf(call.env_type, call.func_name).callFunction(call.func_name, call.arguments);
    this.domain.sync();
    return res;
  }

  /** `run_env_assertion(…, raise_assertion_error=False)`: whether the function returned `assert_value`. */
  runEnvAssertion(assertion: EnvAssertion): boolean {
    const res = this.runEnvFunctionCall(assertion);
    if (typeof res !== "boolean") throw new PyException("ValueError", `Function ${assertion.func_name} returned <class '${res === null ? "NoneType" : typeof res === "string" ? "str" : typeof res === "bigint" ? "int" : typeof res === "number" ? "float" : "object"}'> instead of bool`);
    return res === assertion.assert_value;
  }

  /** `set_state(initialization_data, initialization_actions, message_history)`. */
  setState(
    initializationData: { agent_data?: TValue | null; user_data?: TValue | null } | null | undefined,
    initializationActions: EnvFunctionCall[] | null | undefined,
    messageHistory: HistoryMessage[],
  ): void {
    if (initializationData) {
      if (initializationData.agent_data != null) this.domain.updateDb("assistant", initializationData.agent_data);
      if (initializationData.user_data != null) {
        if (!this.domain.userTools) throw new PyException("AttributeError", "'NoneType' object has no attribute 'update_db'");
        this.domain.updateDb("user", initializationData.user_data);
      }
    }
    for (const action of initializationActions ?? []) this.runEnvFunctionCall(action);
    for (const [call, expected] of actionsOf(messageHistory)) {
      const response = this.getResponse(call);
      if (!pyEq(loadsOrText(response.content), loadsOrText(expected.content))) {
        throw new PyException("ValueError", `Tool call:\n${call.name}\n\nReturned:\n${response.content}\n\nExpected:\n${expected.content}`);
      }
    }
    this.domain.sync();
  }

  dbHash(): string {
    return this.domain.dbHash();
  }

  userDbHash(): string | null {
    return this.domain.userDbHash();
  }
}

/** set_state's pairing of each history tool call with the tool message after it. */
export function actionsOf(history: HistoryMessage[]): [ToolCall, Extract<HistoryMessage, { role: "tool" }>][] {
  const out: [ToolCall, Extract<HistoryMessage, { role: "tool" }>][] = [];
  const queue = [...history];
  while (queue.length) {
    const m = queue.shift()!;
    if (m.role === "tool") throw new PyException("ValueError", "Tool message not expected. Tool messages should always follow a tool call.");
    if ((m.role === "user" || m.role === "assistant") && m.tool_calls) {
      for (const tc of m.tool_calls) {
        const tm = queue.shift();
        if (!tm) throw new PyException("ValueError", "Tool message expected. Got None.");
        if (tm.role !== "tool") throw new PyException("ValueError", `Tool message expected. Got ${tm.role}`);
        if (tc.id !== tm.id) throw new PyException("ValueError", `Tool call id mismatch. Got ${tc.id} and ${tm.id}`);
        out.push([tc, tm]);
      }
    }
  }
  return out;
}

/**
 * The tool message for a call as an episode makes it, from the arguments' JSON text: parsed as
 * `json.loads` parses it (ints and floats apart); text that is not JSON answers with an error, as does
 * a JSON value that is not an object (`**` needs a mapping).
 */
export function argumentsFromJson(argumentsJson: string): { ok: true; value: TValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: pyFromJsonText(argumentsJson) as TValue };
  } catch {
    return { ok: false, error: "the arguments are not valid JSON" };
  }
}
