/** The prompt texts live in lib/tau2 (the launch check measures them too); re-exported for this environment. */
export * from "../../../lib/tau2/prompts";
