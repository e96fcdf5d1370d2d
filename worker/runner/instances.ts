/** Task instances for a run, by dataset reference in the config (deterministic per step for resumability). */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import type { RunConfig } from "../../contracts/run-config";
import { builtinDomain } from "../domains";
import type { TaskInstance } from "../engine/types";
import { tau2InstanceSource } from "./executors/tau2";

export interface InstanceSource {
  /** Instances for training step `step` (same answer on every call: resume replays identically). */
  forStep(step: number): TaskInstance[];
  /** The fixed evaluation set. */
  evalSet(): TaskInstance[];
}

function mix(seed: number, step: number): number {
  return (Math.imul(seed + 1, 1_000_003) + Math.imul(step, 7919)) >>> 0;
}

export async function instanceSource(prisma: PrismaClient, config: RunConfig, note?: (message: string) => void): Promise<InstanceSource> {
  const { dataset } = config.data;
  // tau2 retail (executors/tau2.ts): live-user instances scored by the real end state.
  if (dataset === "tau2:retail") return tau2InstanceSource(config, note);
  if (dataset.startsWith("builtin:")) return builtinInstanceSource(config);
  if (dataset.startsWith("dataset:")) return importedDatasetSource(prisma, config, note);
  throw new Error(`dataset ${dataset} is not available to the engine yet (supported: builtin:<name>, tau2:retail, dataset:<id or name>)`);
}

/** Seed of the draw that fixes a run's task pool (data.poolSize); distinct from every step's seed. */
const POOL_STEP = 0x5eed;

/** Instances of a built-in domain (no database needed; bench:quickstart uses it too). */
export function builtinInstanceSource(config: RunConfig): InstanceSource {
  const { dataset, split, instanceIds, instancesPerStep, seed, poolSize } = config.data;
  const domain = builtinDomain(dataset);
  if (instanceIds.length) {
    const chosen = instanceIds.map((id) => {
      const inst = domain.byId(id);
      if (!inst) throw new Error(`data.instanceIds: no instance "${id}" in ${dataset}`);
      return inst;
    });
    return { forStep: (step) => takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep), evalSet: () => chosen };
  }
  const evalSet = () => domain.sample(mix(seed, 0), instancesPerStep, config.kind === "eval" ? split : "test");
  if (poolSize !== undefined) {
    // The first pass of a seeded draw has no repeats: poolSize distinct tasks (fewer if the split is smaller).
    const drawn = domain.sample(mix(seed, POOL_STEP), poolSize, split);
    const pool = [...new Map(drawn.map((inst) => [inst.id, inst])).values()];
    return { forStep: (step) => takeCyclic(seededShuffle(pool, mix(seed, step)), instancesPerStep, 0), evalSet };
  }
  return { forStep: (step) => domain.sample(mix(seed, step), instancesPerStep, split), evalSet };
}

/** `count` items from `offset` on, wrapping around. */
const takeCyclic = <T>(items: T[], count: number, offset: number) => Array.from({ length: count }, (_, i) => items[(offset + i) % items.length]!);

// ---------------------------------------------------------------------------------------------
// dataset:<id or name> — an imported CM2 dataset (server/features/datasets), read from Instance rows
// ---------------------------------------------------------------------------------------------

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

/** Deterministic shuffle (mulberry32), so a resumed run replays the same instances per step. */
function seededShuffle<T>(items: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

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

async function importedDatasetSource(prisma: PrismaClient, config: RunConfig, note?: (message: string) => void): Promise<InstanceSource> {
  const { dataset, split, instanceIds, instancesPerStep, seed } = config.data;
  const ref = dataset.slice("dataset:".length);
  const row = await prisma.dataset.findFirst({ where: UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref }, select: { id: true, name: true } });
  if (!row) throw new Error(`data.dataset: no imported dataset "${ref}" (import it on the Datasets page, then refer to it by id or name)`);
  // Imported CM2 tasks have no executable environment: tool responses are rehearsed or simulated.
  if (config.rollout.paradigm === "environment" || config.rollout.shadowExecution) {
    throw new Error(`dataset ${row.name} has no executable environment: use the rehearse or simulator paradigm, without shadow execution`);
  }

  const whole = await loadSplit(prisma, row.id, row.name, split);
  const primary = config.data.poolSize === undefined ? whole : seededShuffle(whole, mix(seed, POOL_STEP)).slice(0, config.data.poolSize);
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
    else note?.(`dataset ${row.name} has no test split: periodic evaluation uses the ${split} split`);
  }
  return {
    forStep: (step) => takeCyclic(seededShuffle(primary, mix(seed, step)), instancesPerStep, 0),
    evalSet: () => takeCyclic(seededShuffle(evalPool, mix(seed, 0)), Math.min(instancesPerStep, evalPool.length), 0),
  };
}
