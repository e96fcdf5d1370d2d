/**
 * `dataset:<id or name>`: an imported CM2 dataset (server/features/datasets, lib/cm2.ts), read from
 * Instance rows. CM2 tasks have no executable environment: tool responses are rehearsed or simulated,
 * and their checklists are judged by an LLM.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { seededShuffle, stepSeed, takeCyclic } from "../../lib/random";
import type { TaskInstance } from "../engine/types";
import { POOL_STEP } from "./builtin";
import type { EnvironmentKind } from "./environment";

/** The stored TaskInstance JSON, checked at the database boundary (rows are written by the importer). */
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

export const importedDatasets: EnvironmentKind = {
  prefix: "dataset:",
  forms: "dataset:<id or name>",
  async open({ config, prisma, note }) {
    const { dataset, split, instanceIds, instancesPerStep, seed } = config.data;
    const ref = dataset.slice("dataset:".length);
    const row = await prisma.dataset.findFirst({ where: UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref }, select: { id: true, name: true } });
    if (!row) throw new Error(`data.dataset: no imported dataset "${ref}" (import it on the Datasets page, then refer to it by id or name)`);
    // Imported CM2 tasks have no executable environment: tool responses are rehearsed or simulated.
    if (config.rollout.paradigm === "environment" || config.rollout.shadowExecution) {
      throw new Error(`dataset ${row.name} has no executable environment: use the rehearse or simulator paradigm, without shadow execution`);
    }

    const whole = await loadSplit(prisma, row.id, row.name, split);
    const primary = config.data.poolSize === undefined ? whole : seededShuffle(whole, stepSeed(seed, POOL_STEP)).slice(0, config.data.poolSize);
    if (primary.length === 0) throw new Error(`dataset ${row.name} has no instances in the ${split} split`);
    // CM2 checklists are judged by an LLM; without a judge every item would fail and every reward be 0.
    if (!config.reward.judge && primary.some((inst) => inst.checklists.flat(2).some((item) => !item.check))) {
      throw new Error(`dataset ${row.name} has LLM-judged checklists: set reward.judge to a judge node and model`);
    }

    if (instanceIds.length) {
      const byId = new Map(whole.map((inst) => [inst.id, inst]));
      const chosen = instanceIds.map((id) => {
        const inst = byId.get(id);
        if (!inst) throw new Error(`data.instanceIds: no instance "${id}" in the ${split} split of dataset ${row.name}`);
        return inst;
      });
      return { forStep: (step) => takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep), evalSet: () => chosen };
    }
    // Training runs evaluate on the test split when the dataset has one, else on the training pool
    // (imports often come as one file per split); evaluation runs use the configured split.
    let evalPool = primary;
    if (config.kind === "train" && split !== "test") {
      const test = await loadSplit(prisma, row.id, row.name, "test");
      if (test.length) evalPool = test;
      else note(`dataset ${row.name} has no test split: periodic evaluation uses the ${split} split`);
    }
    return {
      forStep: (step) => takeCyclic(seededShuffle(primary, stepSeed(seed, step)), instancesPerStep),
      evalSet: () => takeCyclic(seededShuffle(evalPool, stepSeed(seed, 0)), Math.min(instancesPerStep, evalPool.length)),
    };
  },
};
