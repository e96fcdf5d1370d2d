/**
 * npm run -s vita:score -- --cases FILE
 * case {"id","num_trials","runs":[{"task_id","termination_reason","verdicts":[bool]|null}]}
 *      verdicts: the judge's final rubric verdicts; null: a task without evaluation criteria; [] a task without rubrics.
 * out  {"case","rewards","partials","avg_reward","avg_partial","pass_hat_k":{"1":…},"pass_at_k","avg_at_k"}
 *      as upstream's evaluate_simulation and compute_metrics give them.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { rewardOfVerdicts, VITA_TERMINATIONS, vitaMetrics } from "../scoring";
import { argValue, casesOf } from "./common";

const caseSchema = z.object({
  id: z.string(),
  num_trials: z.number().int().min(1),
  runs: z
    .array(z.object({ task_id: z.string(), termination_reason: z.enum(VITA_TERMINATIONS), verdicts: z.array(z.boolean()).nullable() }))
    .min(1),
});

const keyed = (m: Map<number, number>) => Object.fromEntries([...m].map(([k, v]) => [String(k), v]));

export function runScoreCase(line: string): string {
  const c = caseSchema.parse(JSON.parse(line));
  const scored = c.runs.map((r) => ({ taskId: r.task_id, ...rewardOfVerdicts(r.termination_reason, r.verdicts) }));
  const m = vitaMetrics(scored, c.num_trials)!;
  return JSON.stringify({
    case: c.id,
    rewards: scored.map((s) => s.reward),
    partials: scored.map((s) => s.partial),
    avg_reward: m.avgReward,
    avg_partial: m.avgPartial,
    pass_hat_k: keyed(m.passHatK),
    pass_at_k: keyed(m.passAtK),
    avg_at_k: keyed(m.avgAtK),
  });
}

if (process.argv[1]?.endsWith("score.ts")) {
  for (const line of casesOf(readFileSync(argValue("--cases"), "utf8"))) process.stdout.write(runScoreCase(line) + "\n");
}
