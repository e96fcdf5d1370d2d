/**
 * Who may change what, in one place: the API enforces these rules and the UI shows them (disabled
 * buttons with the rule beside them). Pure; no data access.
 */

export interface Actor {
  id: string;
  role: string;
}

export const RUN_CHANGE_RULE = "only the member who launched a run, or an admin, can cancel or resume it";
export const NODE_REMOVE_RULE = "only the member who added a node, or an admin, can remove it";
export const NODE_TEST_RULE =
  "the node doctor probes the node's URL from the server, so members may test only nodes an admin added; an admin tests the others";
export const NODE_EDIT_RULE = "only the member who added a node, or an admin, can edit it";

/** The team's read rule for runs: every signed-in account (admin, member, viewer) reads every run. */
export const RUN_READ_RULE = "runs are read by the team's signed-in accounts";
const ROLES = ["admin", "member", "viewer"];

/** Who may read a run (its page, its trajectories, its checkpoints — and evaluate those). */
export function mayReadRun(_run: { createdById: string }, actor: Actor): boolean {
  return ROLES.includes(actor.role);
}

export function mayChangeRun(run: { createdById: string }, actor: Actor): boolean {
  return actor.role === "admin" || (actor.role !== "viewer" && run.createdById === actor.id);
}

export interface NodeOwnership {
  /** null: registered by the system (the embedded node). */
  createdById: string | null;
  createdBy: { role: string } | null;
}

export function mayRemoveNode(node: NodeOwnership, actor: Actor): boolean {
  return actor.role === "admin" || (actor.role !== "viewer" && node.createdById !== null && node.createdById === actor.id);
}

/** Editing follows removal: the member who added the node, or an admin (system nodes: admins). */
export function mayEditNode(node: NodeOwnership, actor: Actor): boolean {
  return mayRemoveNode(node, actor);
}

/** A member may test a URL an admin vouched for (added by an admin, or registered by the system). */
export function mayTestNode(node: NodeOwnership, actor: Actor): boolean {
  if (actor.role === "admin") return true;
  if (actor.role === "viewer") return false;
  return node.createdById === null || node.createdBy?.role === "admin";
}
