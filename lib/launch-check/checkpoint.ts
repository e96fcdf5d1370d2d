/**
 * The checkpoint part of the launch check: a policy that names a training run's checkpoint
 * (`policy.checkpoint = { run, step }`) instead of a base model. It must be a run the caller may read,
 * with a checkpoint at that step (or any, for "latest") that was not deleted, trained from `policy.model`,
 * and `policy.node` must be able to sample it:
 * - the Tinker-compatible node that holds it samples it through a sampling session on its sampler path;
 * - an OpenAI-compatible node loads it as a LoRA adapter (its `lora.adapterDir` set), exported from the
 *   Tinker node that holds it (hosted Tinker, SkyRL tx: their checkpoint archive); the embedded node's
 *   checkpoints are full weights of its tiny model, not adapters, so they are evaluated on it alone;
 * - any other Tinker-compatible node cannot: a server samples only the checkpoints it holds.
 * The server pins what it resolved (`pinCheckpoint`): the stored config names the run by id and the step
 * by number, and the run row records the checkpoint (Run.evaluatedCheckpoint).
 */
import type { PrismaClient } from "@prisma/client";
import { parseNodeSettings } from "../../contracts/node-settings";
import { parseRunConfig, type RunConfig } from "../../contracts/run-config";
import { mayReadRun, RUN_READ_RULE, type Actor } from "../permissions";
import type { LaunchProblem } from "./problems";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The checkpoint a config evaluates, as the worker opens it. */
export interface ResolvedCheckpoint {
  id: string;
  runId: string;
  runName: string;
  step: number;
  nodeName: string;
  samplerPath: string;
  /** The base model the training run trained (its policy.model). */
  baseModel: string;
  /** The LoRA rank it was trained with (its policy.loraRank). */
  loraRank: number;
  /** How the policy node samples it: through a sampling session on the node holding it, or as a LoRA adapter. */
  via: "sampler" | "adapter";
}

export interface CheckpointVerdict {
  problems: LaunchProblem[];
  checkpoint: ResolvedCheckpoint | null;
}

const RUN = "policy.checkpoint.run";
const STEP = "policy.checkpoint.step";

/** Steps in words: "2, 4 and 6". */
const listSteps = (steps: number[]) => (steps.length <= 1 ? steps.join("") : `${steps.slice(0, -1).join(", ")} and ${steps.at(-1)}`);

/**
 * What keeps `config.policy.checkpoint` from being evaluated, on the field it concerns, and the checkpoint
 * when nothing does. `actor` is the launching user (the worker's re-check passes none: who launched may
 * read what they launched).
 */
export async function checkpointVerdict(prisma: PrismaClient, config: RunConfig, actor: Actor | null): Promise<CheckpointVerdict> {
  const ref = config.policy.checkpoint;
  if (!ref) return { problems: [], checkpoint: null };
  const refuse = (path: string, message: string): CheckpointVerdict => ({ problems: [{ path, message }], checkpoint: null });

  const runs = await prisma.run.findMany({
    where: UUID.test(ref.run) ? { OR: [{ id: ref.run }, { name: ref.run }] } : { name: ref.run },
    select: { id: true, name: true, kind: true, status: true, config: true, createdById: true },
    take: 5,
  });
  const byId = runs.find((r) => r.id === ref.run);
  if (!byId && runs.length > 1) {
    return refuse(RUN, `${runs.length === 5 ? "several" : runs.length} runs are named "${ref.run}": name the training run by its id (${runs.map((r) => r.id).join(", ")})`);
  }
  const run = byId ?? runs[0];
  if (!run) return refuse(RUN, `no run "${ref.run}": name a training run by its id or its name`);
  if (actor && !mayReadRun(run, actor)) return refuse(RUN, `you may not read run "${run.name}" (${RUN_READ_RULE})`);
  if (run.kind !== "train") return refuse(RUN, `run "${run.name}" is an evaluation; checkpoints come from training runs`);

  const checkpoints = await prisma.checkpoint.findMany({
    where: { runId: run.id },
    orderBy: { step: "asc" },
    select: { id: true, step: true, nodeName: true, samplerPath: true, deletedAt: true, deletedReason: true },
  });
  if (checkpoints.length === 0) {
    const trained = parseRunConfig(run.config);
    const first = trained.ok ? Math.min(trained.config.schedule.saveEvery, trained.config.schedule.steps) : null;
    const when = run.status === "queued" || run.status === "running" ? ` yet (it is ${run.status}${first ? `; its first checkpoint comes at step ${first}` : ""})` : "";
    return refuse(RUN, `run "${run.name}" has no checkpoints${when}`);
  }
  const available = checkpoints.filter((c) => !c.deletedAt).map((c) => c.step);
  const chosen = ref.step === "latest" ? checkpoints.at(-1)! : checkpoints.find((c) => c.step === ref.step);
  if (!chosen) {
    return refuse(STEP, `run "${run.name}" has no checkpoint at step ${ref.step}${available.length ? ` (it has checkpoints at steps ${listSteps(available)})` : " (all its checkpoints were deleted)"}`);
  }
  if (chosen.deletedAt) {
    const which = ref.step === "latest" ? `the latest checkpoint of run "${run.name}" (step ${chosen.step})` : `the checkpoint of run "${run.name}" at step ${chosen.step}`;
    const others = available.length ? `; it still has checkpoints at steps ${listSteps(available)}` : "";
    return refuse(STEP, `${which} was deleted on ${chosen.deletedAt.toISOString().slice(0, 10)}${chosen.deletedReason ? ` (${chosen.deletedReason})` : ""}${others}`);
  }

  const trained = parseRunConfig(run.config);
  if (!trained.ok) return refuse(RUN, `run "${run.name}" has a stored config this version cannot read, so its base model is unknown`);
  const baseModel = trained.config.policy.model;
  const problems: LaunchProblem[] = [];
  if (config.policy.model !== baseModel) {
    problems.push({ path: "policy.model", message: `the checkpoint was trained from "${baseModel}"; set policy.model to "${baseModel}" (it is "${config.policy.model}")` });
  }

  let via: ResolvedCheckpoint["via"] = "sampler";
  if (config.policy.node !== chosen.nodeName) {
    via = "adapter";
    const nodes = await prisma.node.findMany({ where: { name: { in: [config.policy.node, chosen.nodeName] } }, select: { name: true, kind: true, settings: true } });
    const target = nodes.find((n) => n.name === config.policy.node);
    const holder = nodes.find((n) => n.name === chosen.nodeName);
    const where = `the checkpoint is on node "${chosen.nodeName}"`;
    if (!target) {
      // The node part of the check names an unregistered policy node.
    } else if (target.kind !== "openai") {
      problems.push({ path: "policy.node", message: `${where}; a Tinker-compatible node samples only the checkpoints it holds: set policy.node to "${chosen.nodeName}", or to an OpenAI-compatible node that loads LoRA adapters` });
    } else if (!holder) {
      problems.push({ path: "policy.node", message: `${where}, which is no longer registered: the adapter cannot be exported from it` });
    } else if (holder.kind !== "tinker") {
      problems.push({ path: "policy.node", message: `${where}, the embedded node, whose checkpoints are full weights of its own model, not LoRA adapters: evaluate them on node "${chosen.nodeName}"` });
    } else if (!loraDirOf(target.name, target.settings)) {
      problems.push({ path: "policy.node", message: `${where}; node "${target.name}" does not load LoRA adapters: set its lora.adapterDir (vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING, docs/GPU.md), or set policy.node to "${chosen.nodeName}"` });
    }
  }
  if (problems.length) return { problems, checkpoint: null };
  return {
    problems: [],
    checkpoint: {
      id: chosen.id,
      runId: run.id,
      runName: run.name,
      step: chosen.step,
      nodeName: chosen.nodeName,
      samplerPath: chosen.samplerPath,
      baseModel,
      loraRank: trained.config.policy.loraRank,
      via,
    },
  };
}

function loraDirOf(name: string, settings: unknown): string | null {
  try {
    return parseNodeSettings(name, settings).lora.adapterDir;
  } catch {
    return null; // damaged settings: the worker's node resolution names them
  }
}

/** The config as stored: the checkpoint named by run id and step number, as resolved at launch. */
export function pinCheckpoint(config: RunConfig, checkpoint: ResolvedCheckpoint): RunConfig {
  return { ...config, policy: { ...config.policy, checkpoint: { run: checkpoint.runId, step: checkpoint.step } } };
}

/** "checkpoint of run "name" at step 2" — how logs and messages name it. */
export function describeCheckpoint(c: Pick<ResolvedCheckpoint, "runName" | "step">): string {
  return `the checkpoint of run "${c.runName}" at step ${c.step}`;
}
