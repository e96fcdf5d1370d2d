/**
 * Which nodes a run config uses, and in which role. The one answer for the worker's node check, the
 * run page's node list and the guard that refuses to delete a node a queued or running run needs.
 */
import { z } from "zod";

export const nodeRoles = ["policy", "tool simulator", "user simulator", "judge"] as const;
export type NodeRole = (typeof nodeRoles)[number];

export interface NodeRef {
  role: NodeRole;
  node: string;
  model: string;
  /** Set for the user simulator or judge of an evaluation suite: its index in schedule.evalSuites. */
  suite?: number;
}

/** Where each role sits in a run config (contracts/run-config.ts); a new node-valued setting adds its role here. */
const rolePaths: Record<NodeRole, readonly string[]> = {
  policy: ["policy"],
  "tool simulator": ["rollout", "simulator"],
  "user simulator": ["rollout", "userSimulator"],
  judge: ["reward", "judge"],
};

/** Where a role's node is named in a run config, as a field path ("config.policy.node" for API errors). */
export function nodeFieldOf(role: NodeRole): string {
  return [...rolePaths[role], "node"].join(".");
}

const nodeModel = z.object({ node: z.string().min(1), model: z.string() });

/** Where an evaluation suite (schedule.evalSuites.<i>) names its own nodes. */
const suiteRolePaths: [NodeRole, string][] = [
  ["user simulator", "userSimulator"],
  ["judge", "judge"],
];

/**
 * Every node reference of a config, policy first, then those its evaluation suites name themselves
 * (unless `suites: false`). Takes a parsed RunConfig or a stored config read back as JSON (an older or
 * damaged config yields what it still names, never throws).
 */
export function nodeRefsOf(config: unknown, opts: { suites?: boolean } = {}): NodeRef[] {
  const refs: NodeRef[] = [];
  for (const role of nodeRoles) {
    let value: unknown = config;
    for (const key of rolePaths[role]) value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    const parsed = nodeModel.safeParse(value);
    if (parsed.success) refs.push({ role, node: parsed.data.node, model: parsed.data.model });
  }
  if (opts.suites === false) return refs;
  const schedule = config && typeof config === "object" ? (config as Record<string, unknown>).schedule : undefined;
  const suites = schedule && typeof schedule === "object" ? (schedule as Record<string, unknown>).evalSuites : undefined;
  if (!Array.isArray(suites)) return refs;
  suites.forEach((suite: unknown, i) => {
    for (const [role, key] of suiteRolePaths) {
      const parsed = nodeModel.safeParse(suite && typeof suite === "object" ? (suite as Record<string, unknown>)[key] : undefined);
      if (parsed.success) refs.push({ role, node: parsed.data.node, model: parsed.data.model, suite: i });
    }
  });
  return refs;
}

/** The distinct nodes of a config with their roles, in first-use order. */
export function nodesWithRoles(config: unknown): { node: string; refs: NodeRef[] }[] {
  const byNode = new Map<string, NodeRef[]>();
  for (const ref of nodeRefsOf(config)) byNode.set(ref.node, [...(byNode.get(ref.node) ?? []), ref]);
  return [...byNode].map(([node, refs]) => ({ node, refs }));
}
