/**
 * What the shared τ² harness needs of a domain: one environment's agent-side and (telecom) user-side
 * toolkits over that environment's DBs, `sync_tools` between them, the DB hashes and dumps, and
 * `update_db` for a task's initialisation data. A domain folder (domains/<name>/) builds these from its
 * data model and tools; everything else — the Environment, the evaluator, the episode and the user
 * simulator — is the harness's.
 */
import type { Toolkit } from "./toolkit";
import type { TValue } from "./py";

export const TAU2_DOMAINS = ["retail", "airline", "telecom"] as const;
export type Tau2DomainName = (typeof TAU2_DOMAINS)[number];

export interface DomainEnv {
  /** The agent's tools (`Environment.tools`). */
  readonly tools: Toolkit;
  /** The user's tools on their own device (`Environment.user_tools`), or null when the user has none. */
  readonly userTools: Toolkit | null;
  /** `sync_tools()`: propagate state between the agent's DB and the user's (a no-op without user tools). */
  sync(): void;
  /** `tools.get_db_hash()`. */
  dbHash(): string;
  /** `user_tools.get_db_hash()`, or null without user tools. */
  userDbHash(): string | null;
  /** `update_db(data)`: the DB replaced by `model_validate(merge(model_dump(db), data))`; throws what pydantic raises. */
  updateDb(side: "assistant" | "user", data: TValue): void;
  /** The DB as `model_dump(mode="json")` text in its data file's layout (null: no user DB). */
  dump(side: "assistant" | "user"): string | null;
}
