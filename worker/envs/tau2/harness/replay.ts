/**
 * A task's initial state on a fresh environment, and the two ways tau2 replays a task's gold actions:
 * - the evaluator's gold environment (`replayGold`): `make_tool_call` per action, errors counted and
 *   ignored, NO sync between calls;
 * - the orchestrator's path (`replaySynced`): `get_response` per action (the call, then sync_tools).
 * Also a plain list of calls (`runCalls`, the tau2:calls command).
 */
import { PyDict } from "../../../../lib/python/values";
import { pyArgumentsOf, pyDataOf, type Tau2Task } from "../../../../lib/tau2/tasks";
import { errorMessage, Tau2Environment, type EnvAssertion, type EnvFunctionCall, type HistoryMessage, type Requestor, type ToolMessage } from "./environment";
import { toJsonStr, type TValue } from "./py";
import type { Tau2Source } from "./source";

export interface CallResult {
  name: string;
  requestor: Requestor;
  content: string;
  error: boolean;
}

const fnCall = (c: { env_type: Requestor; func_name: string; arguments: Record<string, unknown> }): EnvFunctionCall => ({
  env_type: c.env_type,
  func_name: c.func_name,
  arguments: pyArgumentsOf(c),
});

/** The task's environment function calls and history, as set_state takes them. */
export function initialStateOf(task: Tau2Task) {
  const s = task.initial_state;
  const data = s?.initialization_data;
  return {
    data: data
      ? {
          agent_data: data.agent_data ? (pyDataOf(data.agent_data) as TValue) : null,
          user_data: data.user_data ? (pyDataOf(data.user_data) as TValue) : null,
        }
      : null,
    actions: s?.initialization_actions?.map(fnCall) ?? null,
    history: (s?.message_history ?? []).map((m): HistoryMessage => {
      if (m.role === "tool") return { role: "tool", id: m.id, content: m.content ?? null, requestor: m.requestor, error: m.error };
      if (m.role === "system") return { role: "system", content: m.content ?? null };
      return {
        role: m.role,
        content: m.content ?? null,
        tool_calls: m.tool_calls ? m.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: pyArgumentsOf(c) as TValue, requestor: c.requestor })) : null,
      };
    }),
  };
}

/** A fresh environment with the task's initial state applied (set_state), as every tau2 simulation starts. */
export function taskEnvironment(source: Tau2Source, task: Tau2Task, seed = task.id): Tau2Environment {
  const env = source.newEnv(seed);
  const init = initialStateOf(task);
  env.setState(init.data, init.actions, init.history);
  return env;
}

export const envAssertionsOf = (task: Tau2Task): EnvAssertion[] =>
  (task.evaluation_criteria?.env_assertions ?? []).map((a) => ({ ...fnCall(a), assert_value: a.assert_value, message: a.message ?? null }));

export interface GoldReplay {
  task_id: string;
  /** How many gold calls raised. */
  errors: number;
  db_hash: string;
  user_db_hash: string | null;
  /** Hashes after the task's initial state, before any gold action. */
  initial_db_hash: string;
  initial_user_db_hash: string | null;
  results: CallResult[];
  env: Tau2Environment;
}

/** The evaluator's gold environment: every gold action through make_tool_call, no sync between them. */
export function replayGold(source: Tau2Source, task: Tau2Task, seed = task.id): GoldReplay {
  const env = taskEnvironment(source, task, seed);
  const initial_db_hash = env.dbHash();
  const initial_user_db_hash = env.userDbHash();
  const results = (task.evaluation_criteria?.actions ?? []).map((a): CallResult => {
    const requestor = a.requestor ?? "assistant";
    try {
      return { name: a.name, requestor, content: toJsonStr(env.makeToolCall(a.name, requestor, pyArgumentsOf(a))), error: false };
    } catch (e) {
      return { name: a.name, requestor, content: `Error: ${errorMessage(e)}`, error: true };
    }
  });
  return {
    task_id: task.id,
    errors: results.filter((r) => r.error).length,
    db_hash: env.dbHash(),
    user_db_hash: env.userDbHash(),
    initial_db_hash,
    initial_user_db_hash,
    results,
    env,
  };
}

export interface SyncedReplay {
  errors: number;
  db_hash: string;
  user_db_hash: string | null;
  results: ToolMessage[];
  /** The task's env assertions on this environment, as EnvironmentEvaluator scores them. */
  env_assertions: boolean[];
  env: Tau2Environment;
}

/** The gold actions as the orchestrator runs tool calls (get_response: the call, then sync_tools). */
export function replaySynced(source: Tau2Source, task: Tau2Task, seed = task.id): SyncedReplay {
  const env = taskEnvironment(source, task, seed);
  const results = (task.evaluation_criteria?.actions ?? []).map((a, i) =>
    env.getResponse({ id: a.action_id ?? String(i), name: a.name, requestor: a.requestor ?? "assistant", arguments: pyArgumentsOf(a) as TValue }),
  );
  const env_assertions = envAssertionsOf(task).map((x) => env.runEnvAssertion(x));
  return { errors: results.filter((r) => r.error).length, db_hash: env.dbHash(), user_db_hash: env.userDbHash(), results, env_assertions, env };
}

export interface CallSpec {
  tool: string;
  arguments: PyDict;
  requestor: Requestor;
}

/** Each call as get_response runs it, in order, on `env`; the tool messages. */
export function runCalls(env: Tau2Environment, calls: CallSpec[]): (ToolMessage & { tool: string })[] {
  return calls.map((c, i) => ({ tool: c.tool, ...env.getResponse({ id: String(i), name: c.tool, requestor: c.requestor, arguments: c.arguments }) }));
}
