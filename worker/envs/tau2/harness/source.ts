/**
 * A τ² domain as one run (or one CLI invocation) uses it: its tasks, a factory of fresh environments over
 * the loaded DBs, the texts the agent and the user simulator are given, and their tools.
 */
import type { ToolSchema } from "../../../engine/io";
import type { Tau2Domain, Tau2Task } from "../../../../lib/tau2/tasks";
import type { Tau2Environment } from "./environment";

export interface Tau2Source {
  domain: Tau2Domain;
  split: "train" | "test";
  tasks: Tau2Task[];
  /**
   * A fresh environment (construction runs sync_tools once), before any task state. `seed` names the
   * episode for the ids a domain mints (telecom's new bills); the episode, its replay and its gold
   * environment pass the same one.
   */
  newEnv(seed?: string): Tau2Environment;
  /** The agent's system message (instructions + the domain's policy). */
  agentSystemPrompt: string;
  /** The user-simulator guidelines (the tools variant when the user has tools). */
  userGuidelines: string;
  agentTools: ToolSchema[];
  /** The tools the user has on their own device, or null. */
  userTools: ToolSchema[] | null;
}
