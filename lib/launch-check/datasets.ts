/**
 * The dataset part of the launch check: does `data.dataset` name something that exists, do the split and
 * the task ids it asks for exist, and what does the dataset need that the config must give (a judge for
 * LLM-judged checklists, an executable environment)? Also what the context part measures: the tasks a run
 * will use, as far as this host can see them.
 *
 * Built-in domains and BFCL categories are names the run-config schema already knows (pure). Imported
 * datasets and MCP servers are rows; tau2's domains and VitaBench are files in the shared data folder, read
 * where they are (a web host without them leaves those checks to the worker, which runs this same check):
 * the split's task file, the ids named, and what the tasks name (tools and functions the domain has).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PrismaClient } from "@prisma/client";
import { parseMcpDatasetRef } from "../../contracts/mcp";
import type { RunConfig } from "../../contracts/run-config";
import type { Tau2ToolSchema as ToolSchema } from "../tau2/tool-schemas";
import { userToolSchemasFor } from "../tau2/prompts";
import { dataDir, loadTasks, parseTau2InstanceId, tau2DataFiles, tau2DomainsOf, TAU2_DATASETS, type Tau2Domain, type Tau2Task } from "../tau2/tasks";
import { tau2TasksProblem } from "../tau2/validate";
import { parseVitaDataset, VITA_DATASET_PREFIX, type VitaDataset } from "../vitabench/datasets";
import { loadVitaTasks, VitaDataError, type VitaTask } from "../vitabench/tasks";
import type { LaunchProblem } from "./problems";
import { finmcpProblems } from "./finmcp";
import { FINMCP_DATASET_PREFIX } from "../finmcp/datasets";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the rest of the check (the prompt floors) knows about the run's tasks. */
export type DatasetView =
  /** tau2 as the run will use it, per domain: its tasks, the user simulator's guidelines and tools. */
  | { kind: "tau2"; domains: { domain: Tau2Domain; tasks: Tau2Task[]; userGuidelines: string; userTools: ToolSchema[] | null }[] }
  /** VitaBench as the run will use it: the dataset (domain, language) and the tasks it runs. */
  | { kind: "vitabench"; dataset: VitaDataset; tasks: VitaTask[] }
  /** An imported dataset: the policy's first prompts are its rows' messages (and tools, unless an MCP server gives them). */
  | { kind: "imported"; id: string; name: string; split: string; instanceIds: string[]; rowTools: boolean }
  /** Nothing this host can measure (built-in domains, BFCL, tau2 data not on this host). */
  | { kind: "unmeasured" };

export interface DatasetVerdict {
  problems: LaunchProblem[];
  view: DatasetView;
}

const dataset = (message: string): LaunchProblem => ({ path: "data.dataset", message });

async function importedDataset(prisma: PrismaClient, ref: string) {
  return prisma.dataset.findFirst({ where: UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref }, select: { id: true, name: true } });
}

/** Imported tasks: the split has rows, the named ids exist, LLM-judged checklists have a judge. */
async function importedProblems(prisma: PrismaClient, config: RunConfig, row: { id: string; name: string }): Promise<LaunchProblem[]> {
  const { split, instanceIds } = config.data;
  const problems: LaunchProblem[] = [];
  const inSplit = await prisma.instance.count({ where: { datasetId: row.id, split } });
  if (inSplit === 0) return [{ path: "data.split", message: `dataset ${row.name} has no instances in the ${split} split` }];
  if (instanceIds.length) {
    const found = await prisma.instance.findMany({ where: { datasetId: row.id, split, externalId: { in: instanceIds } }, select: { externalId: true } });
    const have = new Set(found.map((f) => f.externalId));
    const missing = [...new Set(instanceIds)].filter((id) => !have.has(id));
    if (missing.length) problems.push({ path: "data.instanceIds", message: `no instance ${listed(missing)} in the ${split} split of dataset ${row.name}` });
  }
  if (!config.reward.judge) {
    // A checklist item without a programmatic `check` is judged by an LLM; without a judge every such item fails.
    const judged = await prisma.$queryRaw<{ n: number }[]>`
      select count(*)::int as n from "instance"
      where "datasetId" = ${row.id} and split = ${split}
        and jsonb_path_exists(data, 'lax $.checklists[*][*][*] ? (!(exists(@.check)) || @.check == null)')`;
    if ((judged[0]?.n ?? 0) > 0) {
      problems.push({ path: "reward.judge", message: `dataset ${row.name} has LLM-judged checklists: set reward.judge to a judge node and model` });
    }
  }
  return problems;
}

function listed(ids: string[]): string {
  return `${ids.slice(0, 5).map((m) => `"${m}"`).join(", ")}${ids.length > 5 ? ` (+${ids.length - 5} more)` : ""}`;
}

/** One tau2 domain on this host: the split's task file, the tasks it names, the tasks the run will meet (null: not on this host). */
function tau2DomainVerdict(config: RunConfig, domain: Tau2Domain, ids: string[] | null): { problems: LaunchProblem[]; tasks: Tau2Task[]; userGuidelines: string } | null {
  const { split } = config.data;
  const files = tau2DataFiles(domain, { split, required: [] });
  // The data folder is not on this host: the worker, which has to have it, runs this check again.
  if (!existsSync(files.dir) || !existsSync(files.userGuidelines)) return null;
  if (!existsSync(files.tasks)) return { problems: [{ path: "data.split", message: `tau2 ${domain} has no ${split} split (${files.tasks} is missing)` }], tasks: [], userGuidelines: "" };
  let all: Tau2Task[];
  try {
    all = loadTasks(files.tasks);
  } catch (e) {
    return { problems: [dataset((e as Error).message)], tasks: [], userGuidelines: "" };
  }
  const bad = tau2TasksProblem(domain, all, files.tasks);
  if (bad) return { problems: [dataset(bad)], tasks: [], userGuidelines: "" };
  let tasks = all;
  if (ids) {
    const byId = new Map(all.map((t) => [t.id, t]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length) return { problems: [{ path: "data.instanceIds", message: `no task ${listed(missing)} in the tau2 ${domain} ${split} split` }], tasks: [], userGuidelines: "" };
    tasks = ids.map((id) => byId.get(id)!);
  } else if (config.kind === "train" && split !== "test") {
    // A training run also evaluates, on the test split when its file is there.
    const test = tau2DataFiles(domain, { split: "test", required: [] }).tasks;
    if (existsSync(test)) tasks = [...all, ...loadTasks(test)];
  }
  return { problems: [], tasks, userGuidelines: readFileSync(files.userGuidelines, "utf8") };
}

/** tau2 on this host: every domain the dataset runs (see tau2DomainVerdict). */
function tau2Verdict(config: RunConfig): DatasetVerdict {
  const domains = tau2DomainsOf(config.data.dataset);
  if (!domains) return { problems: [dataset(`unknown tau2 domain "${config.data.dataset}" (available: ${TAU2_DATASETS.join(", ")})`)], view: { kind: "unmeasured" } };
  const { instanceIds } = config.data;
  const single = domains.length === 1 ? domains[0]! : null;
  const refs = instanceIds.map((id) => ({ id, ref: parseTau2InstanceId(id, single) }));
  const bare = refs.filter((r) => !r.ref || !domains.includes(r.ref.domain)).map((r) => r.id);
  if (bare.length) {
    return { problems: [{ path: "data.instanceIds", message: `${config.data.dataset} needs ids of the form ${single ? `<task id> or tau2:${single}/<task id>` : "tau2:<domain>/<task id>"} (${listed(bare)})` }], view: { kind: "unmeasured" } };
  }
  const problems: LaunchProblem[] = [];
  const measured: Extract<DatasetView, { kind: "tau2" }>["domains"] = [];
  for (const domain of domains) {
    const ids = instanceIds.length ? refs.filter((r) => r.ref!.domain === domain).map((r) => r.ref!.taskId) : null;
    if (ids && ids.length === 0) continue;
    const v = tau2DomainVerdict(config, domain, ids);
    if (!v) continue;
    problems.push(...v.problems);
    if (!v.problems.length) measured.push({ domain, tasks: v.tasks, userGuidelines: v.userGuidelines, userTools: userToolSchemasFor(domain) });
  }
  if (problems.length || measured.length === 0) return { problems, view: { kind: "unmeasured" } };
  return { problems, view: { kind: "tau2", domains: measured } };
}

/**
 * VitaBench on this host: the domain's task file in the run's language (a missing one is named with where to supply
 * it), the named task ids, tasks the port cannot start (a message_history). The judge and the user simulator the
 * benchmark needs are the schema's checks.
 */
function vitaVerdict(config: RunConfig): DatasetVerdict {
  const unmeasured: DatasetView = { kind: "unmeasured" };
  const parsed = parseVitaDataset(config.data.dataset);
  if (!parsed.ok) return { problems: [dataset(parsed.message)], view: unmeasured };
  const ds = parsed.dataset;
  const root = join(dataDir(), "vitabench");
  // The data folder is not on this host (its prompts are always there where the data is): the worker checks again.
  if (!existsSync(join(root, "prompts"))) return { problems: [], view: unmeasured };
  const file = join(root, ds.taskFile);
  if (!existsSync(file)) {
    return { problems: [dataset(`VitaBench ${ds.domain} (${ds.lang}) needs ${ds.taskFile}: supply upstream's data/vita/domains/${ds.taskFile} as ${file} (not shipped with the product: it is 4 MiB or larger)`)], view: unmeasured };
  }
  let all: VitaTask[];
  try {
    all = loadVitaTasks(file);
  } catch (e) {
    if (e instanceof VitaDataError) return { problems: [dataset(e.message)], view: unmeasured };
    throw e;
  }
  const { instanceIds } = config.data;
  let tasks = all;
  if (instanceIds.length) {
    const byId = new Map(all.map((t) => [t.id, t]));
    const idOf = (id: string) => (id.startsWith(VITA_DATASET_PREFIX) ? id.slice(id.lastIndexOf("/") + 1) : id);
    const missing = instanceIds.filter((id) => !byId.has(idOf(id)));
    if (missing.length) return { problems: [{ path: "data.instanceIds", message: `no task ${listed(missing)} in ${ds.taskFile}` }], view: unmeasured };
    tasks = instanceIds.map((id) => byId.get(idOf(id))!);
  }
  const withHistory = tasks.find((t) => t.messageHistory);
  if (withHistory) return { problems: [dataset(`${ds.taskFile}: task "${withHistory.id}" starts from a message_history, which this port does not run`)], view: unmeasured };
  return { problems: [], view: { kind: "vitabench", dataset: ds, tasks } };
}

export async function datasetVerdict(prisma: PrismaClient, config: RunConfig): Promise<DatasetVerdict> {
  const ref = config.data.dataset;
  const unmeasured: DatasetView = { kind: "unmeasured" };
  if (ref.startsWith("tau2:")) return tau2Verdict(config);
  if (ref.startsWith(VITA_DATASET_PREFIX)) return vitaVerdict(config);
  if (ref.startsWith(FINMCP_DATASET_PREFIX)) return { problems: await finmcpProblems(prisma, config), view: unmeasured };
  if (ref.startsWith("dataset:")) {
    const row = await importedDataset(prisma, ref.slice("dataset:".length));
    if (!row) return { problems: [dataset(`no imported dataset "${ref.slice("dataset:".length)}" (import it on the Datasets page, then refer to it by id or name)`)], view: unmeasured };
    const problems: LaunchProblem[] = [];
    // Imported tasks have no executable environment: tool responses are rehearsed or simulated.
    if (config.rollout.paradigm === "environment") {
      problems.push({ path: "rollout.paradigm", message: `dataset ${row.name} has no executable environment: use the rehearse or simulator paradigm (or run it against a registered MCP server as mcp:<server>/${row.name})` });
    } else if (config.rollout.shadowExecution) {
      problems.push({ path: "rollout.shadowExecution", message: `dataset ${row.name} has no executable environment to shadow (run it against a registered MCP server as mcp:<server>/${row.name})` });
    }
    problems.push(...(await importedProblems(prisma, config, row)));
    return { problems, view: { kind: "imported", ...row, split: config.data.split, instanceIds: config.data.instanceIds, rowTools: true } };
  }
  if (ref.startsWith("mcp:")) {
    const mcp = parseMcpDatasetRef(ref);
    if (!mcp) return { problems: [dataset(`${ref} is not of the form mcp:<server>/<dataset id or name>`)], view: unmeasured };
    const server = await prisma.mcpServer.findUnique({ where: { name: mcp.server }, select: { id: true } });
    if (!server) return { problems: [dataset(`no MCP server named "${mcp.server}" is registered (an admin registers one on the MCP servers page)`)], view: unmeasured };
    const row = await importedDataset(prisma, mcp.dataset);
    if (!row) return { problems: [dataset(`no imported dataset "${mcp.dataset}" (import its tasks on the Datasets page)`)], view: unmeasured };
    return { problems: await importedProblems(prisma, config, row), view: { kind: "imported", ...row, split: config.data.split, instanceIds: config.data.instanceIds, rowTools: false } };
  }
  // builtin:<name> and bfcl:<…> are checked by the run-config schema (names it knows).
  return { problems: [], view: unmeasured };
}
