/**
 * Output schemas of the run procedures: what the API returns, documented in the OpenAPI document
 * (server/openapi.ts). They mirror `runListSelect` / `runDetailSelect` in service.ts field by field —
 * a field missing here is stripped from the response, so add it to both.
 */
import { z } from "zod";
import { runStatuses } from "../../../contracts/jobs";
import { paradigms } from "../../../contracts/run-config";
import { jsonColumn, storedEnum } from "../../trpc/rest";

const metricValues = jsonColumn(z.record(z.number().nullable())).describe("Metric key → value (e.g. reward/mean); denormalised on the run, no history");

export const runSummaryOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    kind: storedEnum(["train", "eval"]),
    status: storedEnum(runStatuses),
    paradigm: storedEnum(paradigms).describe("rollout.paradigm of the config"),
    policyNode: z.string().describe("policy.node of the config"),
    tags: z.array(z.string()),
    progressStep: z.number().int().describe("Committed steps so far"),
    totalSteps: z.number().int(),
    etaSeconds: z.number().nullable().describe("Estimated seconds to finish, while running"),
    latestMetrics: metricValues,
    bestMetrics: metricValues,
    error: z.string().nullable(),
    statusDetail: z.string().nullable().describe("What a running run is doing beside progressing, e.g. \"waiting for node …\" after a node restart; null otherwise"),
    cancelRequested: z.boolean(),
    createdAt: z.date(),
    startedAt: z.date().nullable(),
    finishedAt: z.date().nullable(),
    createdById: z.string().describe("Who launched the run: they (or an admin) may cancel or resume it"),
    createdBy: z.object({ name: z.string(), email: z.string() }),
  })
  .openapi({ ref: "RunSummary" });

/**
 * The stored config as the worker read it. Not re-validated on the way out: a run keeps the config it
 * was launched with even after the schema gains or tightens fields. Shape: RunConfig (see /api/openapi.json).
 */
export const storedRunConfig = jsonColumn(z.record(z.unknown())).openapi({ description: "The run's settings as launched (the RunConfig shape)", "x-envace-schema": "RunConfig" });

export const runDetailOutput = runSummaryOutput
  .extend({
    config: storedRunConfig,
    configVersion: z.number().int(),
    attempts: z.number().int().describe("How many times a worker has claimed the run"),
    heartbeatAt: z.date().nullable(),
    parentRunId: z.string().uuid().nullable(),
    studyId: z.string().uuid().nullable().describe("The study the run belongs to (GET /studies/{id})"),
    updatedAt: z.date(),
    archivedAt: z.date().nullable().describe("When the run's turns were archived (POST /runs/{id}/archive); null while they are in the database"),
    archiveUri: z.string().nullable().describe("Where the run's last archive is: a folder, or s3://<bucket>/<prefix><run id>"),
    retainTurnsDays: z.number().int().nullable().describe("The worker archives the run's turns this many days after it finished; null keeps them"),
    evaluatedCheckpoint: z
      .object({
        id: z.string().uuid(),
        step: z.number().int().describe("The training step of the checkpoint"),
        runId: z.string().uuid().describe("The training run it belongs to"),
        run: z.object({ name: z.string() }),
      })
      .nullable()
      .describe("Evaluation runs of a trained policy: the checkpoint evaluated (policy.checkpoint, pinned at launch); null otherwise"),
  })
  .openapi({ ref: "Run" });

export const checkpointOutput = z
  .object({
    id: z.string().uuid(),
    step: z.number().int(),
    nodeName: z.string().describe("The Tinker-compatible node that holds it"),
    statePath: z.string().describe("Training state (tinker://…/weights/…): where a resumed run continues"),
    samplerPath: z.string().describe("Sampler weights (tinker://…/sampler_weights/…): what an evaluation samples"),
    createdAt: z.date(),
    deletedAt: z.date().nullable().describe("Set when it can no longer be evaluated (deleted from its node, or found missing there)"),
    deletedReason: z.string().nullable(),
    evaluations: z.number().int().describe("Evaluation runs of this checkpoint"),
    exportable: z.boolean().describe("Its node can export it as a LoRA adapter archive (hosted Tinker, SkyRL tx)"),
  })
  .openapi({ ref: "Checkpoint" });

/** An evaluation run of one of a training run's checkpoints (its lineage, Run.evaluatedCheckpoint). */
export const checkpointEvaluationOutput = runSummaryOutput
  .extend({
    step: z.number().int().nullable().describe("The training step of the checkpoint evaluated"),
    dataset: z.string().nullable().describe("data.dataset of the evaluation"),
    repeats: z.number().int().describe("Independent passes"),
  })
  .openapi({ ref: "CheckpointEvaluation" });

export const runPageOutput = z.object({
  items: z.array(runSummaryOutput),
  nextCursor: z.string().uuid().nullable().describe("Pass as cursor for the next page; null on the last page"),
});

/** One committed evaluation step of a run (server/features/runs/evaluations.ts EvaluationRow). */
export const evaluationOutput = z
  .object({
    runId: z.string().uuid(),
    suite: z.string().nullable().describe("The evaluation suite (schedule.evalSuites name); null for the run's own evaluation of data.dataset"),
    benchmark: z.string().describe("The suite's name, or the dataset evaluated"),
    dataset: z.string(),
    split: z.string().nullable().describe("The split evaluated; null for a training run's own evaluation, whose split its environment picks (the test split when there is one)"),
    step: z.number().int().describe("The training step whose policy was evaluated (1 for an evaluation run)"),
    finishedAt: z.date(),
    episodes: z.number().int().describe("Episodes committed: tasks × trials"),
    k: z.number().int().nullable().describe("Trials per task: the k of pass@k and avg@k"),
    reward: z.number().nullable().describe("Mean reward (reward/mean)"),
    success: z.number().nullable().describe("Share of episodes won by the benchmark's own definition (avg@k)"),
    passAtK: z.number().nullable().describe("Share of tasks won in at least one of k trials"),
    metrics: z.record(z.number()).describe("Every metric of the step, as the engine named it"),
  })
  .openapi({ ref: "Evaluation" });
