/**
 * Evaluation reports: result tables computed from runs (live) or frozen as a snapshot, markdown notes,
 * and read-only share links. A share link's token is random (256 bits), stored only as a SHA-256, scoped
 * to one report, expiring and revocable; `readShared` is the ONLY way a token reads anything.
 */
import { Prisma } from "@prisma/client";
import type { SessionUser } from "../../trpc/context";
import { prisma } from "../../../lib/db";
import { DomainError, notFound } from "../../lib/errors";
import { randomToken, sha256 } from "../../../lib/secrets";
import { instanceOutcomes } from "../compare/service";
import { listMetricKeys, metricSeries } from "../metrics/service";
import { buildBfclTable, BFCL_METRIC_PREFIX, type BfclTable } from "../../../lib/reports/bfcl";
import { buildTau2Table, TAU2_METRIC_PREFIX, type Tau2Table } from "../../../lib/reports/tau2";
import { chartKeysIn } from "../../../lib/reports/embeds";
import { exportFileName, exportFormats, exportReport, type ExportFormat } from "../../../lib/reports/export";
import { buildResultTable, scrubForShare, type ReportChart, type ReportDocument, type ReportRun, type ResultTable } from "../../../lib/reports/document";
import { buildTestTimeTable, type TestTimeTable } from "../../../lib/reports/test-time";
import { buildVitaTable, VITA_METRIC_PREFIX, type VitaTable } from "../../../lib/reports/vitabench";
import { parseRunConfig } from "../../../contracts/run-config";
import { noteBfclPasses, poolBfclPasses, withRepeats } from "../../../lib/reports/repeats";
import { multiPass, passTables } from "./repeats";
import { buildTable1, type Table1 } from "../../../lib/reports/table1";
import type { FinmcpTable } from "../../../lib/reports/finmcp";
import { finmcpRows } from "./finmcp";

/** Charts a report shows, when the runs have them: the first matching key per pattern, at most four. */
const CHART_PATTERNS = [/^reward\/mean$/, /^val\/avg@\d+$/, /^val\/pass@\d+$/, /^fidelity\/mean$/, /^judge\/pass_rate$/];
const MAX_CHARTS = 4;
/** Charts the notes embed by reference (```envace-chart), computed beside the automatic ones. */
const MAX_EMBEDDED_CHARTS = 16;
const CHART_POINTS = 200;

interface Snapshot {
  version: 1;
  generatedAt: string;
  runs: ReportRun[];
  table: ResultTable;
  charts: ReportChart[];
  /** Absent in snapshots frozen before BFCL reports existed. */
  bfcl?: BfclTable | null;
  /** Table 3 (test-time rehearsal), when the runs include test-time evaluations. */
  testTime?: TestTimeTable | null;
  /** The τ² group (absent in snapshots frozen before it existed). */
  tau2?: Tau2Table | null;
  /** Table 1's VitaBench group, when the runs include VitaBench evaluations; absent in older snapshots. */
  vitabench?: VitaTable | null;
  /** The paper's Table 1 over every benchmark group, one row per evaluated policy; absent in older snapshots. */
  table1?: Table1 | null;
  /** The paper's Table 2 (FinMCP-Bench), when the runs include FinMCP evaluations; absent in older snapshots. */
  finmcp?: FinmcpTable | null;
}

/** Results of a set of runs, computed now, with the charts the notes embed. Deleted runs are left out. */
export async function computeResults(runIds: string[], embeddedChartKeys: string[] = []): Promise<Snapshot> {
  const found = await prisma.run.findMany({
    where: { id: { in: runIds } },
    select: { id: true, name: true, kind: true, paradigm: true, status: true, config: true, evaluatedCheckpoint: { select: { step: true, run: { select: { name: true } } } } },
  });
  const ordered = runIds
    .map((id) => found.find((r) => r.id === id))
    .filter((r) => r != null)
    .map(({ config, evaluatedCheckpoint, ...r }) => ({ ...r, config, checkpoint: evaluatedCheckpoint ? `run "${evaluatedCheckpoint.run.name}" step ${evaluatedCheckpoint.step}` : null }));
  const ids = ordered.map((r) => r.id);
  const { sets, outcomes, errored } = await instanceOutcomes(ids);
  const runs: ReportRun[] = ordered.map(({ config: _config, checkpoint: _checkpoint, ...r }) => {
    const set = sets.find((s) => s.runId === r.id);
    return { ...r, evaluated: set ? { phase: set.phase, step: set.step } : null };
  });
  // Evaluation runs of several passes: Avg@k is the mean over the passes, with their spread.
  const table = withRepeats(buildResultTable(ordered, outcomes, errored), await passTables(ordered, sets));
  // Stored configs are read back through the schema; a run whose config no longer parses is left out of Table 3 and the VitaBench group.
  const parsedRuns = ordered.flatMap((r) => {
    const parsed = parseRunConfig(r.config);
    return parsed.ok ? [{ id: r.id, name: r.name, status: r.status, config: parsed.config, checkpoint: r.checkpoint }] : [];
  });
  const testTime = buildTestTimeTable(parsedRuns, outcomes);

  const keysByRun = await Promise.all(ids.map((id) => listMetricKeys(id)));
  const allKeys = [...new Set(keysByRun.flat())];
  const automatic = CHART_PATTERNS.map((p) => allKeys.find((k) => p.test(k))).filter((k): k is string => k != null).slice(0, MAX_CHARTS);
  const embedded = embeddedChartKeys.filter((k) => allKeys.includes(k)).slice(0, MAX_EMBEDDED_CHARTS);
  const chartKeys = [...new Set([...automatic, ...embedded])];
  const charts: ReportChart[] = chartKeys.map((key) => ({ key, series: [] }));
  if (chartKeys.length) {
    await Promise.all(
      ordered.map(async (run, i) => {
        const keys = chartKeys.filter((k) => keysByRun[i]!.includes(k));
        if (!keys.length) return;
        const { series } = await metricSeries({ runId: run.id, keys, maxPoints: CHART_POINTS, axis: "step" });
        for (const s of series) {
          charts
            .find((c) => c.key === s.key)!
            .series.push({ runId: run.id, runName: run.name, points: s.points.map((p) => ({ step: p.step, value: p.mean })) });
        }
      }),
    );
    // Keep series in run order whatever order the queries finished in.
    for (const c of charts) c.series.sort((a, b) => ids.indexOf(a.runId) - ids.indexOf(b.runId));
  }
  const bfclPoints = await prisma.metricPoint.findMany({
    where: { runId: { in: ids }, key: { startsWith: BFCL_METRIC_PREFIX } },
    select: { runId: true, key: true, step: true, value: true },
  });
  const multiPassRuns = new Set(sets.filter(multiPass).map((s) => s.runId));
  const pooled = poolBfclPasses(bfclPoints, multiPassRuns);
  const bfcl = noteBfclPasses(buildBfclTable(ordered, pooled.points), bfclPoints, pooled.passes);
  const tau2Points = await prisma.metricPoint.findMany({
    where: { runId: { in: ids }, key: { startsWith: TAU2_METRIC_PREFIX } },
    select: { runId: true, key: true, step: true, value: true },
  });
  // A τ² evaluation of several passes: each domain's Avg is the mean over its passes (the same pooling as BFCL's).
  const tau2 = buildTau2Table(ordered, poolBfclPasses(tau2Points, multiPassRuns).points);
  const vitaPoints = await prisma.metricPoint.findMany({
    where: { runId: { in: ids }, key: { startsWith: VITA_METRIC_PREFIX } },
    select: { runId: true, key: true, step: true, value: true },
  });
  const vitabench = buildVitaTable(parsedRuns, poolBfclPasses(vitaPoints, multiPassRuns).points);
  // Table 1: a row per evaluated policy from all its runs; the spread of multi-pass runs from their passes' own points.
  const passSteps = new Map(sets.filter(multiPass).map((s) => [s.runId, Array.from({ length: s.step - s.fromStep + 1 }, (_, i) => s.fromStep + i)]));
  const table1 = buildTable1({
    runs: parsedRuns,
    points: [...pooled.points, ...poolBfclPasses(tau2Points, multiPassRuns).points],
    passPoints: [...bfclPoints, ...tau2Points, ...vitaPoints],
    passes: passSteps,
    vitabench,
  });
  const finRows = await finmcpRows(parsedRuns);
  const finmcp = finRows.length ? { rows: finRows } : null;
  return { version: 1, generatedAt: new Date().toISOString(), runs, table, charts, testTime, bfcl, tau2, vitabench, table1, finmcp };
}

const reportSelect = {
  id: true,
  title: true,
  body: true,
  runIds: true,
  snapshot: true,
  frozenAt: true,
  createdAt: true,
  updatedAt: true,
  createdById: true,
  createdBy: { select: { name: true, email: true } },
} satisfies Prisma.ReportSelect;

type ReportRow = Prisma.ReportGetPayload<{ select: typeof reportSelect }>;

async function documentOf(report: Pick<ReportRow, "title" | "body" | "runIds" | "snapshot" | "frozenAt">): Promise<ReportDocument> {
  const results = report.snapshot ? (report.snapshot as unknown as Snapshot) : await computeResults(report.runIds, chartKeysIn(report.body));
  return {
    title: report.title,
    notes: report.body,
    generatedAt: results.generatedAt,
    frozenAt: report.frozenAt ? report.frozenAt.toISOString() : null,
    runs: results.runs,
    table: results.table,
    charts: results.charts,
    testTime: results.testTime ?? null,
    bfcl: results.bfcl ?? null,
    tau2: results.tau2 ?? null,
    vitabench: results.vitabench ?? null,
    table1: results.table1 ?? null,
    finmcp: results.finmcp ?? null,
  };
}

async function loadReport(id: string): Promise<ReportRow> {
  const report = await prisma.report.findUnique({ where: { id }, select: reportSelect });
  if (!report) throw notFound("report", id);
  return report;
}

/** Reports are changed by their author or an admin. */
function assertCanChange(report: { createdById: string }, user: SessionUser) {
  if (report.createdById !== user.id && user.role !== "admin") {
    throw new DomainError("FORBIDDEN", "only the report's author or an admin can change it");
  }
}

async function assertRunsExist(runIds: string[]) {
  const found = await prisma.run.findMany({ where: { id: { in: runIds } }, select: { id: true } });
  const missing = runIds.filter((id) => !found.some((r) => r.id === id));
  if (missing.length) {
    throw new DomainError("BAD_REQUEST", `run(s) not found: ${missing.join(", ")}`, [{ path: "runIds", message: "unknown run" }]);
  }
}

export async function listReports(input: { limit: number; cursor?: string | null }) {
  const anchor = input.cursor
    ? await prisma.report.findUnique({ where: { id: input.cursor }, select: { id: true, createdAt: true } })
    : null;
  const rows = await prisma.report.findMany({
    where: anchor ? { OR: [{ createdAt: { lt: anchor.createdAt } }, { createdAt: anchor.createdAt, id: { lt: anchor.id } }] } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    select: { id: true, title: true, runIds: true, frozenAt: true, createdAt: true, createdBy: { select: { name: true, email: true } } },
  });
  const hasMore = rows.length > input.limit;
  const items = hasMore ? rows.slice(0, input.limit) : rows;
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}

export async function getReport(id: string) {
  const row = await loadReport(id);
  const { snapshot: _omitted, ...report } = row;
  return { report, document: await documentOf(row) };
}

/** One export file of a report, as the app's export buttons make it. */
export async function exportReportFile(id: string, format: "md" | "csv" | "latex" | "json") {
  const { document } = await getReport(id);
  const as: ExportFormat = format === "md" ? "markdown" : format;
  const spec = exportFormats.find((f) => f.format === as)!;
  return { fileName: exportFileName(document, as), mediaType: spec.mime, content: exportReport(document, as) };
}

export async function createReport(user: SessionUser, input: { title: string; body: string; runIds: string[] }) {
  const runIds = [...new Set(input.runIds)];
  await assertRunsExist(runIds);
  return prisma.report.create({
    data: { title: input.title, body: input.body, runIds, createdById: user.id },
    select: { id: true, title: true },
  });
}

export async function updateReport(user: SessionUser, input: { id: string; title?: string; body?: string; runIds?: string[] }) {
  const report = await loadReport(input.id);
  assertCanChange(report, user);
  if (input.runIds) {
    if (report.frozenAt) throw new DomainError("CONFLICT", "the report is frozen: unfreeze it to change its runs");
    await assertRunsExist(input.runIds);
  }
  return prisma.report.update({
    where: { id: input.id },
    data: {
      ...(input.title != null ? { title: input.title } : {}),
      ...(input.body != null ? { body: input.body } : {}),
      ...(input.runIds ? { runIds: [...new Set(input.runIds)] } : {}),
    },
    select: { id: true, title: true },
  });
}

/** Freeze the results as they are now (notes stay editable); freezing again refreshes the snapshot. */
export async function freezeReport(user: SessionUser, id: string) {
  const report = await loadReport(id);
  assertCanChange(report, user);
  const snapshot = await computeResults(report.runIds, chartKeysIn(report.body));
  await prisma.report.update({
    where: { id },
    data: { snapshot: snapshot as unknown as Prisma.InputJsonValue, frozenAt: new Date(snapshot.generatedAt) },
  });
  return { id, frozenAt: snapshot.generatedAt };
}

export async function unfreezeReport(user: SessionUser, id: string) {
  const report = await loadReport(id);
  assertCanChange(report, user);
  await prisma.report.update({ where: { id }, data: { snapshot: Prisma.DbNull, frozenAt: null } });
  return { id };
}

export async function deleteReport(user: SessionUser, id: string) {
  const report = await loadReport(id);
  assertCanChange(report, user);
  await prisma.report.delete({ where: { id } });
  return { id };
}

// ---------- share links ----------

const SHARE_PREFIX = "envr_";

function shareStatus(link: { expiresAt: Date | null; revokedAt: Date | null }, now = new Date()) {
  if (link.revokedAt) return "revoked" as const;
  if (link.expiresAt && link.expiresAt <= now) return "expired" as const;
  return "active" as const;
}

export async function createShareLink(user: SessionUser, input: { reportId: string; expiresInDays: number }) {
  const report = await loadReport(input.reportId);
  assertCanChange(report, user);
  const token = randomToken(SHARE_PREFIX, 32);
  const link = await prisma.shareLink.create({
    data: {
      reportId: report.id,
      tokenHash: sha256(token),
      expiresAt: new Date(Date.now() + input.expiresInDays * 86_400_000),
    },
    select: { id: true, expiresAt: true, createdAt: true },
  });
  // The token is returned once and never stored.
  return { ...link, token, path: `/share/${token}` };
}

export async function listShareLinks(reportId: string) {
  await loadReport(reportId);
  const links = await prisma.shareLink.findMany({
    where: { reportId },
    orderBy: { createdAt: "desc" },
    select: { id: true, createdAt: true, expiresAt: true, revokedAt: true },
  });
  return links.map((l) => ({ ...l, status: shareStatus(l) }));
}

export async function revokeShareLink(user: SessionUser, id: string) {
  const link = await prisma.shareLink.findUnique({ where: { id }, select: { id: true, revokedAt: true, report: { select: { createdById: true } } } });
  if (!link) throw notFound("share link", id);
  assertCanChange(link.report, user);
  if (!link.revokedAt) await prisma.shareLink.update({ where: { id }, data: { revokedAt: new Date() } });
  return { id };
}

/**
 * Read one report through a share token, without an account. The token resolves to exactly one
 * report; nothing else is reachable with it. Unknown, revoked and expired tokens get the same answer.
 */
export async function readShared(token: string) {
  const link = await prisma.shareLink.findUnique({
    where: { tokenHash: sha256(token) },
    select: { expiresAt: true, revokedAt: true, report: { select: { title: true, body: true, runIds: true, snapshot: true, frozenAt: true } } },
  });
  if (!link || shareStatus(link) !== "active") {
    throw new DomainError("NOT_FOUND", "this share link is invalid, revoked or expired");
  }
  return { document: scrubForShare(await documentOf(link.report)), expiresAt: link.expiresAt };
}
