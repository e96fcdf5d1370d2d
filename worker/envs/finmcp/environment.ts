/**
 * `finmcp:<file>` as a run environment (evaluation runs): the samples of `$ENVACE_DATA_DIR/<finmcp.folder>/<file>.json`,
 * each run as upstream's inference runs it (episode.ts), its tools answered by `finmcp.environment`:
 *
 * - `mcp:<server>`: a registered MCP server, upstream's protocol (mcp.ts); the tool schemas are the server's;
 * - `replay`: the recorded output of the matching gold call (replay.ts), the schemas from `finmcp.toolSchema` —
 *   labelled as a replay in every metric (`val/finmcp/replay` = 1), log line, report and export.
 *
 * Evaluation metrics are upstream's overall block over the samples it scores (`val/finmcp/<macro_Precision|…|N|
 * consist_mean>`; TR = recall, TP = precision, TF1 = F1), with the error records and skipped samples counted; the
 * per-group blocks (scenario, difficulty, task) are computed from the stored per-sample counts by the run page and the
 * reports (lib/finmcp/score.ts), so they are upstream's too.
 */
import type { Prisma } from "@prisma/client";
import type { RunConfig } from "../../../contracts/run-config";
import { finmcpFiles, loadFinmcpSamples, loadFinmcpToolSchema, chooseFinmcpSamples, FinmcpDataError } from "../../../lib/finmcp/data";
import { FINMCP_DATASET_PREFIX, FINMCP_METRIC_PREFIX, finmcpModeLabel, parseFinmcpDataset, parseFinmcpEnvironment, type FinmcpToolSource } from "../../../lib/finmcp/datasets";
import { openMcpSession } from "../../../lib/mcp/session";
import { launchColumns, launchSpecOf, storedSettingsOf } from "../../../lib/mcp/store";
import { parseOrderedJson, type OrderedJson } from "../../../lib/python/json";
import { readFileSync } from "node:fs";
import { seededShuffle, stepSeed, takeCyclic } from "../../../lib/random";
import type { ToolSchema } from "../../engine/io";
import type { TrajectoryResult } from "../../engine/step";
import type { TaskInstance } from "../../engine/types";
import type { EnvironmentContext, EnvironmentKind, RunEnvironment } from "../environment";
import { Slots } from "../mcp/slots";
import { selectTools, toolSchemaOf } from "../mcp/tools";
import { contextFittingPolicy } from "../fit-context";
import { finmcpInstance, type FinmcpScoreDetail, type FinmcpWorldFactory } from "./episode";
import { finmcpMcpWorld } from "./mcp";
import { NO_RECORDED_OUTPUT, recordedCalls, replayWorld } from "./replay";
import { blockNumbers, metricBlock } from "./scoring";

export const FINMCP_FORMS = "finmcp:<file>";

/** The per-sample detail a FinMCP trajectory's score keeps. */
export function finmcpDetailOf(t: Pick<TrajectoryResult, "judgements">): FinmcpScoreDetail | null {
  const d = t.judgements[t.judgements.length - 1]?.detail as { finmcp?: FinmcpScoreDetail } | undefined;
  return d?.finmcp ?? null;
}

/** Upstream's overall block over the scored samples, and what it left out, as metric points `val/finmcp/…`. */
export function finmcpEvalMetrics(trajectories: readonly TrajectoryResult[], source: FinmcpToolSource): Record<string, number> {
  const details = trajectories.map((t) => ({ t, d: finmcpDetailOf(t) }));
  const scored = details.filter(({ t, d }) => d && !d.notScored && t.outcome !== "error").map(({ d }) => d!);
  const errored = details.filter(({ d }) => d?.notScored?.startsWith("error record")).length + details.filter(({ d }) => !d).length;
  const skipped = details.filter(({ d }) => d?.notScored && !d.notScored.startsWith("error record")).length;
  const out: Record<string, number> = { [`${FINMCP_METRIC_PREFIX}samples`]: trajectories.length, [`${FINMCP_METRIC_PREFIX}replay`]: source.kind === "replay" ? 1 : 0 };
  if (errored) out[`${FINMCP_METRIC_PREFIX}errored`] = errored;
  if (skipped) out[`${FINMCP_METRIC_PREFIX}skipped`] = skipped;
  if (source.kind === "replay") {
    const unrecorded = scored.reduce(
      (n, d) => n + d.messagesPred.filter((m) => (m as { role?: string; content?: unknown }).role === "tool" && String((m as { content?: unknown }).content ?? "").startsWith(NO_RECORDED_OUTPUT)).length,
      0,
    );
    out[`${FINMCP_METRIC_PREFIX}unrecorded_calls`] = unrecorded;
  }
  if (scored.length === 0) return out;
  for (const [k, v] of Object.entries(blockNumbers(metricBlock(scored)))) out[`${FINMCP_METRIC_PREFIX}${k}`] = v;
  return out;
}

/** The run's log after an evaluation: the headline in Table 2's terms, then a line per sample. */
export function finmcpEvalReport(dataset: string, source: FinmcpToolSource, trajectories: readonly TrajectoryResult[]): { headline?: string; lines: string[] } {
  const m = finmcpEvalMetrics(trajectories, source);
  const v = (k: string) => m[`${FINMCP_METRIC_PREFIX}${k}`];
  const pct = (x: number | undefined) => (x === undefined ? "—" : (100 * x).toFixed(2));
  const headline =
    v("N") === undefined
      ? `${dataset} (${finmcpModeLabel(source)}): no sample scored`
      : `${dataset} (${finmcpModeLabel(source)}): TR ${pct(v("macro_Recall"))} TP ${pct(v("macro_Precision"))} TF1 ${pct(v("macro_F1"))} (macro; micro TF1 ${pct(v("micro_F1"))}) over ${v("N")} sample(s), exact match ${pct(v("consist_mean"))}`;
  const lines = trajectories.map((t) => {
    const d = finmcpDetailOf(t);
    if (!d) return `sample ${t.instanceId}: ${t.outcome} (${t.error?.cause ?? t.terminationReason})`;
    if (d.notScored) return `sample ${d.index}: not scored — ${d.notScored}`;
    return `sample ${d.index}: TP ${d.TP} FP ${d.FP} FN ${d.FN}${d.consist ? " (exact)" : ""}; gold ${d.gold.join(", ") || "—"}; predicted ${d.pred.join(", ") || "—"}`;
  });
  return { headline, lines: lines.slice(0, 200) };
}

const seededPick = <T>(items: readonly T[], count: number, seed: number, step: number): T[] => takeCyclic(seededShuffle(items, stepSeed(seed, step)), count);

interface Opened {
  tools: ToolSchema[];
  world: FinmcpWorldFactory;
  close?: () => Promise<void>;
}

/** The live server: its tools listed once (registered selection applied), a session per turn. */
async function openServer(ctx: EnvironmentContext, server: string): Promise<Opened> {
  const { prisma, config, signal } = ctx;
  const row = await prisma.mcpServer.findUnique({ where: { name: server }, select: { id: true, name: true, settings: true, ...launchColumns } });
  if (!row) throw new Error(`finmcp.environment: no MCP server named "${server}" is registered (an admin registers one on the MCP servers page)`);
  const settings = storedSettingsOf(row.name, row.settings);
  const spec = launchSpecOf(row.name, row);
  let listed;
  try {
    const session = await openMcpSession(spec, { limits: settings.limits, label: row.name, listTools: true, signal });
    listed = { tools: session.tools, serverInfo: session.serverInfo };
    await session.close();
  } catch (e) {
    throw new Error(`finmcp.environment: MCP server ${row.name} could not be started to list its tools: ${e instanceof Error ? e.message : String(e)}`);
  }
  await prisma.mcpServer
    .update({ where: { id: row.id }, data: { tools: listed.tools as unknown as Prisma.InputJsonValue, health: "healthy", healthDetail: null, checkedAt: new Date() } })
    .catch(() => {});
  const selected = selectTools(listed.tools, settings.tools);
  if (!selected.ok) throw new Error(`finmcp.environment: MCP server ${row.name} no longer offers the selected tool(s) ${selected.missing.join(", ")}`);
  if (selected.tools.length === 0) throw new Error(`finmcp.environment: MCP server ${row.name} lists no tools`);
  const tools = selected.tools.map(toolSchemaOf);
  ctx.info?.(`FinMCP tools from MCP server ${row.name}${listed.serverInfo ? ` (${listed.serverInfo.name} ${listed.serverInfo.version})` : ""}: ${tools.length} tool(s)`);
  const slots = new Slots(settings.limits.maxSessions);
  const worlds = new Set<{ close?: () => void | Promise<void> }>();
  let failedRounds = 0;
  return {
    tools,
    world: () => {
      const w = finmcpMcpWorld({
        server: row.name,
        spec,
        limits: settings.limits,
        slots,
        attempts: config.finmcp.mcpAttempts,
        callTimeoutMs: config.finmcp.mcpCallTimeoutS * 1000,
        signal,
        onFailedRound: () => {
          if (failedRounds++ === 0) ctx.note(`MCP server ${row.name}: a round of calls failed as a whole (answered 调用失败, as upstream answers it)`);
        },
      });
      worlds.add(w);
      return { ...w, close: async () => (worlds.delete(w), await w.close?.()) };
    },
    close: async () => {
      await Promise.all([...worlds].map((w) => Promise.resolve(w.close?.()).catch(() => {})));
    },
  };
}

/** The replay: the tool schemas from the file, each sample's recorded gold calls. */
function openReplay(config: RunConfig, file: string, note: (m: string) => void): Opened {
  const files = finmcpFiles(file, { folder: config.finmcp.folder, schema: config.finmcp.toolSchema });
  const tools = loadFinmcpToolSchema(files.schema) as unknown as ToolSchema[];
  note(`FinMCP-Bench runs in REPLAY mode: each call is answered with the recorded output of the matching gold call (same tool and arguments), any other with "no recorded output" — not upstream's live-server protocol; its numbers are labelled as a replay`);
  const bySample = new WeakMap<object, ReturnType<typeof recordedCalls>>();
  return {
    tools,
    world: (sample) => {
      let recorded = bySample.get(sample);
      if (!recorded) bySample.set(sample, (recorded = recordedCalls(sample)));
      return replayWorld(recorded);
    },
  };
}

export async function finmcpEnvironment(ctx: EnvironmentContext): Promise<RunEnvironment> {
  const { config, note } = ctx;
  const parsed = parseFinmcpDataset(config.data.dataset);
  if (!parsed.ok) throw new Error(`data.dataset: ${parsed.message}`);
  const source = parseFinmcpEnvironment(config.finmcp.environment ?? "");
  if (!source) throw new Error("finmcp.environment: choose mcp:<server> (a registered MCP server) or replay");
  const files = finmcpFiles(parsed.dataset.file, { folder: config.finmcp.folder, schema: config.finmcp.toolSchema });
  const samples = loadFinmcpSamples(files.samples);
  // The scorer reads the samples as upstream's json.load gives them (key order, ints and floats kept).
  const raw = parseOrderedJson(readFileSync(files.samples, "utf8")) as Map<string, OrderedJson>[];
  const indices = chooseFinmcpSamples(samples.length, config.data.instanceIds, files.samples);
  const opened = source.kind === "replay" ? openReplay(config, parsed.dataset.file, note) : await openServer(ctx, source.server);
  const mode = source.kind === "replay" ? "replay" : `mcp:${source.server}`;
  // A replay's episodes carry the label into every generic view of them (the result table, trajectory lists, compare).
  const dataSource = source.kind === "replay" ? `${config.data.dataset} (replay)` : config.data.dataset;
  const instances: TaskInstance[] = indices.map((i) =>
    finmcpInstance(i, samples[i]!, raw[i]!, { dataSource, tools: opened.tools, maxToolCalls: config.finmcp.maxToolCalls, world: opened.world, mode }),
  );
  if (config.sampling.evalAct.maxTokens !== 4096) note(`upstream asks for at most 4096 tokens per reply (max_new_tokens); this run's sampling.evalAct.maxTokens is ${config.sampling.evalAct.maxTokens}`);
  return {
    forStep: (step) => seededPick(instances, config.data.instancesPerStep, config.data.seed, step),
    evalSet: () => instances,
    // The whole schema set and the gold history go with every request: fit them into a small node's context.
    samplingPolicy: (node, standard) => (node.protocol === "tinker" ? contextFittingPolicy(node.policy) : standard),
    evaluationParadigm: { paradigm: "environment", why: "FinMCP-Bench's calls are answered by its back end (the MCP server, or the replay)" },
    evaluationMetrics: (result) => finmcpEvalMetrics(result.trajectories, source),
    evaluationReport: (result) => finmcpEvalReport(config.data.dataset, source, result.trajectories),
    close: opened.close,
  };
}

export const finmcpEnvironments: EnvironmentKind = {
  prefix: FINMCP_DATASET_PREFIX,
  forms: FINMCP_FORMS,
  async open(ctx) {
    try {
      return await finmcpEnvironment(ctx);
    } catch (e) {
      if (e instanceof FinmcpDataError) throw new Error(`data.dataset: ${e.message}`);
      throw e;
    }
  },
};
