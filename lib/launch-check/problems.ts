/** A reason a run cannot run, on the config field it concerns. Pure. */

export interface LaunchProblem {
  /** Dotted path inside the run config ("data.dataset", "rollout.userSimulator.node"); callers prefix it ("config."). */
  path: string;
  message: string;
}

/**
 * One line for all problems, as the API's message and the worker's run error say it:
 * "data.dataset: no imported dataset "x" … (and 2 more)".
 */
export function describeProblems(problems: readonly LaunchProblem[]): string {
  const first = problems[0];
  if (!first) return "";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return `${first.path}: ${first.message}${more}`;
}
