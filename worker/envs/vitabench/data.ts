/** The task files (lib/vitabench/tasks.ts, shared with the launch check): loading and validation with zod, errors naming file and path. */
export * from "../../../lib/vitabench/tasks";
