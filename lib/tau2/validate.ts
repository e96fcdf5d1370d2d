/**
 * What a task may name, per domain: the agent's and the user's tools, and the functions environment
 * calls reach (initialisation actions and assertions). A task naming anything else is refused where it is
 * loaded — by the launch check and by the worker — instead of failing mid-episode. The worker's toolkits
 * are held to these lists by a test (worker/envs/tau2/domains/names.test.ts).
 */
import { agentToolSchemasFor, userToolSchemasFor } from "./prompts";
import { rewardBasisOf, type Tau2Domain, type Tau2Task } from "./tasks";

/** Non-tool methods of each toolkit that environment function calls may name. */
export const TAU2_ENV_FUNCTIONS: Record<Tau2Domain, { assistant: readonly string[]; user: readonly string[] }> = {
  retail: { assistant: [], user: [] },
  airline: { assistant: [], user: [] },
  telecom: {
    assistant: [
      "get_available_plan_ids", "set_data_usage", "suspend_line_for_overdue_bill", "assert_data_refueling_amount", "assert_line_status",
      "assert_overdue_bill_exists", "assert_no_overdue_bill", "_get_line_by_phone", "_get_line_by_id", "_get_plan_by_id", "_get_device_by_id",
      "_get_bill_by_id", "_get_target_line", "_set_bill_to_paid", "_apply_one_time_charge",
    ],
    user: [
      "set_user_info", "set_user_location", "turn_airplane_mode_on", "turn_airplane_mode_off", "unseat_sim_card", "lock_sim_card", "turn_data_on",
      "turn_data_off", "turn_roaming_on", "turn_roaming_off", "turn_data_saver_mode_on", "turn_data_saver_mode_off", "break_apn_settings",
      "break_apn_mms_setting", "set_wifi_calling", "break_vpn", "remove_app_permission", "simulate_network_search", "assert_airplane_mode_status",
      "assert_service_status", "assert_mobile_data_status", "assert_mobile_roaming_status", "assert_mobile_data_saver_mode_status",
      "assert_internet_speed", "assert_internet_not_excellent", "assert_can_send_mms", "assert_mobile_data_usage_exceeded", "_check_status_bar",
      "_get_mobile_data_working", "_can_send_mms",
    ],
  },
};

export interface TaskProblem {
  /** JSON path inside the task, e.g. "evaluation_criteria.actions.2.name". */
  path: string;
  message: string;
}

/** Everything in a task its domain cannot run (empty: the task can run). */
export function tau2TaskProblems(domain: Tau2Domain, task: Tau2Task): TaskProblem[] {
  const problems: TaskProblem[] = [];
  const agentTools = new Set(agentToolSchemasFor(domain).map((t) => t.function.name));
  const userTools = new Set((userToolSchemasFor(domain) ?? []).map((t) => t.function.name));
  const fns = TAU2_ENV_FUNCTIONS[domain];
  const functions = { assistant: new Set([...agentTools, ...fns.assistant]), user: new Set([...userTools, ...fns.user]) };
  const ec = task.evaluation_criteria;
  ec?.actions?.forEach((a, i) => {
    const who = a.requestor ?? "assistant";
    const tools = who === "user" ? userTools : agentTools;
    if (!tools.has(a.name)) {
      problems.push({
        path: `evaluation_criteria.actions.${i}.name`,
        message: who === "user" && userTools.size === 0 ? `the ${domain} user has no tools (action "${a.name}" is requested by the user)` : `no ${who === "user" ? "user" : "agent"} tool "${a.name}" in the ${domain} domain`,
      });
    }
  });
  const checkFn = (where: string, call: { env_type: "assistant" | "user"; func_name: string }) => {
    if (!functions[call.env_type].has(call.func_name)) problems.push({ path: `${where}.func_name`, message: `no ${call.env_type === "user" ? "user" : "agent"} function "${call.func_name}" in the ${domain} domain` });
  };
  task.initial_state?.initialization_actions?.forEach((a, i) => checkFn(`initial_state.initialization_actions.${i}`, a));
  ec?.env_assertions?.forEach((a, i) => checkFn(`evaluation_criteria.env_assertions.${i}`, a));
  if (ec && rewardBasisOf(task).includes("NL_ASSERTION")) {
    problems.push({ path: "evaluation_criteria.reward_basis", message: "NL_ASSERTION is not scored by tau2 v0.2.0's evaluation (it raises when the basis names it)" });
  }
  if (task.initial_state?.initialization_data?.user_data && userTools.size === 0) {
    problems.push({ path: "initial_state.initialization_data.user_data", message: `the ${domain} domain has no user DB to update` });
  }
  return problems;
}

/** The first problem of any task, as one message naming the file, the task and the path. */
export function tau2TasksProblem(domain: Tau2Domain, tasks: Tau2Task[], source: string): string | null {
  for (const [i, task] of tasks.entries()) {
    const [p] = tau2TaskProblems(domain, task);
    if (p) return `${source}: task #${i} (id ${JSON.stringify(task.id)}) ${p.path}: ${p.message}`;
  }
  return null;
}
