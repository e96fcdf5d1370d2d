/**
 * Who may change what, in one place: the API enforces these rules and the UI shows them (disabled
 * buttons with the rule beside them). Pure; no data access.
 */

export interface Actor {
  id: string;
  role: string;
}

export const RUN_CHANGE_RULE = "only the member who launched a run, or an admin, can cancel or resume it";
/** Nodes are infrastructure: the server and the worker make requests to a node's URL with its key. */
export const NODE_ADD_RULE = "only admins add nodes (the server and the worker make requests to a node's URL); members use them in their runs";
export const NODE_REMOVE_RULE = "only admins remove nodes";
export const NODE_TEST_RULE =
  "the node doctor probes the node's URL from the server, so members may test only nodes an admin added; an admin tests the others";
export const NODE_EDIT_RULE = "only admins change nodes";

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

/** Who adds nodes: admins. */
export function mayAddNode(actor: Actor): boolean {
  return actor.role === "admin";
}

/** Who removes a node: admins (whoever added it; members' nodes from before nodes were admin-only too). */
export function mayRemoveNode(_node: NodeOwnership, actor: Actor): boolean {
  return actor.role === "admin";
}

/** Who changes a node's URL, key or settings: admins. */
export function mayEditNode(_node: NodeOwnership, actor: Actor): boolean {
  return actor.role === "admin";
}

/**
 * A member may test a URL an admin vouched for (added by an admin, or registered by the system); a node a
 * member added before nodes became admin-only is tested by an admin.
 */
export function mayTestNode(node: NodeOwnership, actor: Actor): boolean {
  if (actor.role === "admin") return true;
  if (actor.role === "viewer") return false;
  return node.createdById === null || node.createdBy?.role === "admin";
}
