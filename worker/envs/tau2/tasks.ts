/** The task files and their location live in lib/tau2 (the launch check reads them too); re-exported for this environment. */
export * from "../../../lib/tau2/tasks";
