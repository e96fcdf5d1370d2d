/**
 * `dataset:<id or name>`: an imported dataset (server/features/datasets: CM2 rows, lib/cm2.ts, or the
 * simple task JSONL, lib/tasks-jsonl.ts), read from Instance rows. Imported tasks have no executable
 * environment: tool responses are rehearsed or simulated, and their checklists are judged by an LLM
 * (or checked programmatically). The same selection of tasks per step serves `mcp:<server>/<dataset>`
 * (worker/envs/mcp), which gives them an MCP server as their environment.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { seededShuffle, stepSeed, takeCyclic } from "../../lib/random";
import type { TaskInstance } from "../engine/types";
import { POOL_STEP, type EnvironmentContext, type EnvironmentKind } from "./environment";

/** The stored TaskInstance JSON, checked at the database boundary (rows are written by the importers). */
const storedInstanceSchema = z
  .object({
    id: z.string().min(1),
    dataSource: z.string(),
    messages: z.array(z.object({ role: z.string(), content: z.string() }).passthrough()).min(1),
    tools: z.array(z.unknown()),
    followUpUserMessages: z.array(z.string()),
    checklists: z.array(z.array(z.array(z.object({ id: z.string(), question: z.string(), weight: z.number() }).passthrough()))).min(1),
  })
  .passthrough();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function loadSplit(prisma: PrismaClient, datasetId: string, name: string, split: string): Promise<TaskInstance[]> {
  const rows = await prisma.instance.findMany({ where: { datasetId, split }, orderBy: { externalId: "asc" }, select: { externalId: true, data: true } });
  return rows.map((row) => {
    const parsed = storedInstanceSchema.safeParse(row.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`dataset ${name}: instance ${row.externalId} is malformed (${issue.path.join(".") || "data"}: ${issue.message}); re-import the dataset`);
    }
    return parsed.data as unknown as TaskInstance;
  });
}

/** An imported dataset by id or name; throws a message saying how to import one. */
export async function findImportedDataset(prisma: PrismaClient, ref: string): Promise<{ id: string; name: string }> {
  const row = await prisma.dataset.findFirst({ where: UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref }, select: { id: true, name: true } });
  if (!row) throw new Error(`data.dataset: no imported dataset "${ref}" (import it on the Datasets page, then refer to it by id or name)`);
  return row;
}

/**
 * The tasks of an imported dataset for one run: per step (a seeded draw from the split, or its
 * data.poolSize pool, or data.instanceIds in turn) and for evaluation (training runs: the test split
 * when there is one). `prepare` turns each stored task into the run's (e.g. gives it a server).
 */
export async function importedTasks(
  { config, prisma, note }: Pick<EnvironmentContext, "config" | "prisma" | "note">,
  dataset: { id: string; name: string },
  prepare: (instance: TaskInstance) => TaskInstance = (i) => i,
): Promise<{ forStep(step: number): TaskInstance[]; evalSet(): TaskInstance[] }> {
  const { split, instanceIds, instancesPerStep, seed } = config.data;
  const load = async (s: string) => (await loadSplit(prisma, dataset.id, dataset.name, s)).map(prepare);
  const whole = await load(split);
  const primary = config.data.poolSize === undefined ? whole : seededShuffle(whole, stepSeed(seed, POOL_STEP)).slice(0, config.data.poolSize);
  if (primary.length === 0) throw new Error(`dataset ${dataset.name} has no instances in the ${split} split`);
  // LLM-judged checklists need a judge; without one every item would fail and every reward be 0.
  if (!config.reward.judge && primary.some((inst) => inst.checklists.flat(2).some((item) => !item.check))) {
    throw new Error(`dataset ${dataset.name} has LLM-judged checklists: set reward.judge to a judge node and model`);
  }

  if (instanceIds.length) {
    const byId = new Map(whole.map((inst) => [inst.id, inst]));
    const chosen = instanceIds.map((id) => {
      const inst = byId.get(id);
      if (!inst) throw new Error(`data.instanceIds: no instance "${id}" in the ${split} split of dataset ${dataset.name}`);
      return inst;
    });
    return { forStep: (step) => takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep), evalSet: () => chosen };
  }
  // Training runs evaluate on the test split when the dataset has one, else on the training pool
  // (imports often come as one file per split); evaluation runs use the configured split.
  let evalPool = primary;
  if (config.kind === "train" && split !== "test") {
    const test = await load("test");
    if (test.length) evalPool = test;
    else note(`dataset ${dataset.name} has no test split: periodic evaluation uses the ${split} split`);
  }
  return {
    forStep: (step) => takeCyclic(seededShuffle(primary, stepSeed(seed, step)), instancesPerStep),
    evalSet: () => takeCyclic(seededShuffle(evalPool, stepSeed(seed, 0)), Math.min(instancesPerStep, evalPool.length)),
  };
}

export const importedDatasets: EnvironmentKind = {
  prefix: "dataset:",
  forms: "dataset:<id or name>",
  async open(ctx) {
    const { config, prisma } = ctx;
    const row = await findImportedDataset(prisma, config.data.dataset.slice("dataset:".length));
    // Imported tasks have no executable environment: tool responses are rehearsed or simulated.
    if (config.rollout.paradigm === "environment" || config.rollout.shadowExecution) {
      throw new Error(
        `dataset ${row.name} has no executable environment: use the rehearse or simulator paradigm, without shadow execution (or run it against a registered MCP server as mcp:<server>/${row.name})`,
      );
    }
    return importedTasks(ctx, row);
  },
};
