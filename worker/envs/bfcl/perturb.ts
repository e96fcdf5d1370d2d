/**
 * Deterministic variants of a task's ground truth, used as model results to test the checker against
 * upstream's verdicts (scripts/bfcl/make_goldens.py builds the same ones in Python).
 */
export type Perturbation = "gt" | "split" | "drop_last" | "empty_first" | "dup_first";

export function perturbations(gt: readonly (readonly string[])[]): Map<Perturbation, string[][][]> {
  const asSteps = () => gt.map((turn) => (turn.length > 0 ? [[...turn]] : []));
  const variants = new Map<Perturbation, string[][][]>();
  variants.set("gt", asSteps());
  variants.set("split", gt.map((turn) => turn.map((c) => [c])));
  const nonEmpty = gt.flatMap((turn, i) => (turn.length > 0 ? [i] : []));
  if (nonEmpty.length > 0) {
    const last = nonEmpty[nonEmpty.length - 1];
    const dropped = asSteps();
    dropped[last] = gt[last].length > 1 ? [gt[last].slice(0, -1)] : [];
    variants.set("drop_last", dropped);
    const first = nonEmpty[0];
    const empty = asSteps();
    empty[first] = [];
    variants.set("empty_first", empty);
    const doubled = asSteps();
    doubled[first] = [[gt[first][0], ...gt[first]]];
    variants.set("dup_first", doubled);
  }
  return variants;
}
