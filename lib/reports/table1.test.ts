import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig } from "../../contracts/run-config";
import { aggregateBfcl, BFCL_V4_ENTRY_COUNTS, type CategoryResult, type ScoringCategory } from "../bfcl/aggregate";
import { PAPER_COLUMN_CATEGORIES } from "../bfcl/paper";
import type { MetricPointRow } from "./bfcl";
import { sampleDocument } from "../../test/fixtures/report-document";
import { scrubForShare } from "./document";
import { exportReport, latexEscape } from "./export";
import { buildVitaTable } from "./vitabench";
import { bfclAvgOfColumns, buildTable1, provenanceLines, table1CellText, table1CsvRows, TABLE1_CSV_HEADER, table1Latex, table1Markdown, table1Overall, type Table1Run } from "./table1";

const cfg = (dataset: string, extra: Record<string, unknown> = {}): RunConfig => {
  const parsed = parseRunConfig({ kind: "eval", policy: { node: "vllm", model: "Qwen/Qwen3-8B" }, data: { dataset }, rollout: { userSimulator: { node: "u", model: "sim" } }, ...extra });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
};
const run = (id: string, dataset: string, checkpoint: string | null = null, extra: Record<string, unknown> = {}): Table1Run => ({ id, name: `run ${id}`, status: "succeeded", config: cfg(dataset, extra), checkpoint });
const pts = (runId: string, step: number, m: Record<string, number>): MetricPointRow[] => Object.entries(m).map(([key, value]) => ({ runId, key, step, value }));

/** BFCL points of every category but web search, each at `acc`. */
const bfclPoints = (runId: string, step: number, acc: number, skip: readonly string[] = ["web_search_base", "web_search_no_snippet"]) =>
  pts(
    runId,
    step,
    Object.fromEntries(
      Object.keys(BFCL_V4_ENTRY_COUNTS)
        .filter((c) => !skip.includes(c))
        .flatMap((c) => [
          [`val/bfcl/${c}/accuracy`, acc],
          [`val/bfcl/${c}/tasks`, BFCL_V4_ENTRY_COUNTS[c as ScoringCategory]],
        ]),
    ),
  );
const tau2 = (runId: string, step: number, domain: string, avg: number) => pts(runId, step, { [`val/tau2/${domain}/avg`]: avg, [`val/tau2/${domain}/tasks`]: 10, [`val/tau2/${domain}/trials`]: 10 });

describe("Table 1's math", () => {
  it("BFCL Avg is upstream's Overall Acc over the six columns: agentic 40 % (web search and memory halves), multi-turn 30 %, live, non-live and irrelevance 10 % each", () => {
    expect(bfclAvgOfColumns({ web: 10, memory: 20, multiTurn: 30, nonLive: 80, live: 70, irrelevance: 75 })).toEqual({ value: 37.5, partial: false });
    // The same number upstream's aggregation gives from the categories.
    const results: Partial<Record<ScoringCategory, CategoryResult>> = {};
    Object.keys(BFCL_V4_ENTRY_COUNTS).forEach((c, i) => (results[c as ScoringCategory] = { accuracy: ((i * 37) % 100) / 100, totalCount: BFCL_V4_ENTRY_COUNTS[c as ScoringCategory] }));
    const s = aggregateBfcl(results);
    const six = { web: s.agentic.webSearch.accuracy, memory: s.agentic.memory.accuracy, multiTurn: s.multiTurn.overall.accuracy, nonLive: s.nonLive.overall.accuracy, live: s.live.overall.accuracy, irrelevance: s.irrelevance.accuracy };
    expect(bfclAvgOfColumns(six).value).toBeCloseTo(s.overall.accuracy, 12);
    // Missing columns: the weighted mean over those present, marked partial.
    expect(bfclAvgOfColumns({ memory: 20, multiTurn: 30, nonLive: 80, live: 70, irrelevance: 75, web: null })).toEqual({ value: (0.2 * 20 + 0.3 * 30 + 0.1 * 225) / 0.8, partial: true });
  });

  it("Overall is the mean of the three averages: the paper's Qwen3-8B 28.48 and EnvACE-8B 32.91", () => {
    const o = (a: number, b: number, c: number) => Math.round(table1Overall([a, b, c].map((value) => ({ value, partial: false }))).value! * 100) / 100;
    expect(o(44.04, 30.0, 11.4)).toBe(28.48);
    expect(o(46.04, 36.7, 16.0)).toBe(32.91);
    const two = table1Overall([{ value: 44.04, partial: false }, { value: 30, partial: false }, { value: null, partial: false }]);
    expect(two.partial).toBe(true);
    expect(two.value).toBeCloseTo(37.02, 10);
    expect(table1Overall([{ value: 44.04, partial: true }, { value: 30, partial: false }, { value: 11.4, partial: false }]).partial).toBe(true);
  });
});

describe("Table 1 from a report's runs", () => {
  const runs = [
    run("b1", "bfcl:all"),
    run("t1", "tau2:retail"),
    run("t2", "tau2:telecom"),
    run("t3", "tau2:airline"),
    run("c1", "bfcl:all", 'run "train" step 40'),
    run("c2", "tau2:all", 'run "train" step 40', { repeats: 2 }),
    run("d1", "bfcl:all", 'run "train" step 80'),
    run("d2", "tau2:retail", 'run "train" step 80'),
    run("x", "tau2:retail", null, { kind: "train" }),
  ];
  const passPoints = [
    ...bfclPoints("b1", 1, 0.4),
    ...tau2("t1", 1, "retail", 0.3),
    ...tau2("t2", 1, "telecom", 0.2),
    ...tau2("t3", 1, "airline", 0.4),
    ...bfclPoints("c1", 1, 0.5),
    ...tau2("c2", 1, "retail", 0.4),
    ...tau2("c2", 1, "telecom", 0.3),
    ...tau2("c2", 1, "airline", 0.5),
    ...tau2("c2", 2, "retail", 0.6),
    ...tau2("c2", 2, "telecom", 0.3),
    ...tau2("c2", 2, "airline", 0.5),
    ...bfclPoints("d1", 1, 0.45),
    ...tau2("d2", 1, "retail", 0.9),
  ];
  // The service pools a multi-pass run's points into its last pass (the mean of the passes).
  const pooled = [...passPoints.filter((p) => p.runId !== "c2"), ...tau2("c2", 2, "retail", 0.5), ...tau2("c2", 2, "telecom", 0.3), ...tau2("c2", 2, "airline", 0.5)];
  const table = buildTable1({ runs, points: pooled, passPoints, passes: new Map([["c2", [1, 2]]]), vitabench: null })!;
  const cell = (row: number, id: string) => table.rows[row]!.cells.find((c) => c.id === id)!;

  it("one row per evaluated policy (base model or checkpoint), gathered from its runs; 17 columns", () => {
    expect(table.columns.map((c) => c.label)).toEqual(["Web", "Mem.", "Multi", "NoLive", "Live", "Irrel.", "Avg", "Retail", "Telecom", "Airline", "Avg", "Cross", "Deliv.", "Inst.", "OTA", "Avg", "Overall"]);
    expect(table.rows.map((r) => r.label)).toEqual(["Qwen/Qwen3-8B on vllm", 'run "train" step 40', 'run "train" step 80']);
    expect(table.rows[0]!.provenance.map((s) => [s.group, s.runs.map((r) => r.id)])).toEqual([
      ["bfcl", ["b1"]],
      ["tau2", ["t1", "t2", "t3"]],
    ]);
    expect([cell(0, "tau2.retail").value, cell(0, "tau2.telecom").value, cell(0, "tau2.airline").value, cell(0, "tau2.avg").value]).toEqual([30, 20, 40, 30]);
    expect(cell(0, "bfcl.memory").value).toBe(40);
  });

  it("a column without a result is — with its reason; a partial average is marked and its Overall too", () => {
    expect(cell(0, "bfcl.web")).toMatchObject({ value: null, note: expect.stringContaining("web_search_base") });
    expect(table1CellText(cell(0, "bfcl.web"))).toBe("—");
    expect(cell(0, "bfcl.avg")).toMatchObject({ value: 40, partial: true, note: expect.stringContaining("Web not complete") });
    expect(table1CellText(cell(0, "bfcl.avg"))).toBe("40.00†");
    expect(cell(0, "vitabench.cross")).toMatchObject({ value: null, note: "no VitaBench evaluation of this policy in the report" });
    expect(cell(0, "overall")).toMatchObject({ value: 35, partial: true, note: "partial: BFCL V4, VitaBench have no complete average" });
    expect(cell(2, "tau2.avg")).toMatchObject({ value: 90, partial: true, note: "partial: mean of Retail only (Telecom, Airline not run)" });
  });

  it("Avg@k over independent passes with the spread", () => {
    expect(cell(1, "tau2.retail")).toMatchObject({ value: 50, spread: { passes: 2, mean: 50, std: 14.14, min: 40, max: 60 } });
    expect(cell(1, "tau2.avg").spread).toMatchObject({ passes: 2, min: 40, max: 46.67 });
    expect(table1CellText(cell(1, "tau2.retail"))).toBe("50.00 ± 14.14");
  });

  it("best and second best only among rows with the same columns, never a partial value", () => {
    // Rows 0 and 1 have the same columns; row 2 lacks Telecom and Airline, so it is compared with none.
    expect(table.rows[0]!.signature).toEqual(table.rows[1]!.signature);
    expect([cell(0, "bfcl.memory").rank, cell(1, "bfcl.memory").rank, cell(2, "bfcl.memory").rank]).toEqual([null, 1, null]);
    expect([cell(0, "tau2.avg").rank, cell(1, "tau2.avg").rank]).toEqual([null, 1]);
    expect(table.rows.flatMap((r) => r.cells).filter((c) => c.partial && c.rank !== null)).toEqual([]);
    // Two rows: a best, no second.
    expect(table.rows.flatMap((r) => r.cells).some((c) => c.rank === 2)).toBe(false);
  });

  it("second best among three rows of the same columns", () => {
    const three = buildTable1({
      runs: [run("p", "tau2:all"), run("q", "tau2:all", "ckpt q"), run("r", "tau2:all", "ckpt r")],
      points: [...["retail", "telecom", "airline"].flatMap((d) => [...tau2("p", 1, d, 0.1), ...tau2("q", 1, d, 0.3), ...tau2("r", 1, d, 0.2)])],
      passPoints: [],
      passes: new Map(),
      vitabench: null,
    })!;
    expect(three.rows.map((r) => r.cells.find((c) => c.id === "tau2.avg")!.rank)).toEqual([null, 1, 2]);
  });

  it("says how each row was made: policy, runs, repeats, sampling, user simulator, data version, aggregation", () => {
    const lines = provenanceLines(table.rows[1]!);
    expect(lines[0]).toBe('Policy: checkpoint of run "train" step 40 (Qwen/Qwen3-8B on vllm).');
    expect(lines[2]).toMatch(/^τ²-Bench: runs "run c2"; repeats 2; trials per task 1; sampling temperature 0\.6, top-p 0\.95, max 8000 tokens; user simulator sim on u; data τ²-bench v0\.2\.0 task files; aggregation: Avg@k/);
  });

  it("exports carry every column, mark and the provenance: Markdown, CSV, LaTeX", () => {
    const md = table1Markdown(table).join("\n");
    expect(md).toContain("| Policy | BFCL V4 Web | BFCL V4 Mem. |");
    expect(md).toContain("| Qwen/Qwen3-8B on vllm | — | 40.00 |");
    expect(md).toContain("40.00†");
    expect(md).toContain("**50.00**");
    expect(md).toContain("[2] run \"train\" step 40:");
    expect(md).toContain("Qwen/Qwen3-8B on vllm, BFCL V4 Web: — not run: web_search_base");
    const csv = table1CsvRows(table);
    expect(csv[0]!.length).toBe(TABLE1_CSV_HEADER.length);
    const at = (row: number, name: string) => csv[row]![TABLE1_CSV_HEADER.indexOf(name)];
    expect([at(0, "bfcl_web"), at(0, "bfcl_avg"), at(0, "bfcl_avg_mark"), at(1, "tau2_avg_mark")]).toEqual(["", "40.00", "partial", expect.stringMatching(/^best; std /)]);
    expect(at(0, "bfcl_web_mark")).toMatch(/^not run: /);
    expect(at(1, "provenance_repeats")).toBe("bfcl: 1 | tau2: 2");
    const tex = table1Latex(table, latexEscape).join("\n");
    expect(tex).toContain("\\multicolumn{7}{c}{BFCL V4} & \\multicolumn{4}{c}{$\\tau^2$-Bench} & \\multicolumn{5}{c}{VitaBench} & \\\\");
    expect(tex).toContain("\\cmidrule(lr){2-8} \\cmidrule(lr){9-12} \\cmidrule(lr){13-17}");
    expect(tex).toContain("40.00\\textsuperscript{\\dag}");
    expect(tex).toContain("\\textbf{50.00}{\\scriptsize$\\pm$14.14}");
  });

  it("rows compare the same BFCL categories: a category is taken from the first run of the policy that evaluated it", () => {
    const split = buildTable1({
      runs: [run("m", "bfcl:multi_turn"), run("a", "bfcl:all")],
      points: [...pts("m", 1, Object.fromEntries(PAPER_COLUMN_CATEGORIES.multiTurn.flatMap((c) => [[`val/bfcl/${c}/accuracy`, 1], [`val/bfcl/${c}/tasks`, 200]]))), ...bfclPoints("a", 1, 0.5)],
      passPoints: [],
      passes: new Map(),
      vitabench: null,
    })!;
    expect(split.rows).toHaveLength(1);
    expect(split.rows[0]!.cells.find((c) => c.id === "bfcl.multiTurn")!.value).toBe(100);
    expect(split.rows[0]!.cells.find((c) => c.id === "bfcl.live")!.value).toBe(50);
    expect(split.rows[0]!.provenance[0]!.runs.map((r) => r.id)).toEqual(["m", "a"]);
  });

  it("no BFCL, τ² or VitaBench evaluation: no table", () => {
    expect(buildTable1({ runs: [run("z", "builtin:shop")], points: [], passPoints: [], passes: new Map(), vitabench: null })).toBeNull();
  });

  it("every export of a report carries Table 1 as the app shows it, and a share link keeps the provenance without run ids", () => {
    const doc = sampleDocument({ table1: table });
    expect(exportReport(doc, "markdown")).toContain(table1Markdown(table).join("\n"));
    const csv = exportReport(doc, "csv");
    expect(csv).toContain(TABLE1_CSV_HEADER.join(","));
    expect(csv).toContain('Qwen/Qwen3-8B on vllm,,"not run: ');
    expect(exportReport(doc, "latex")).toContain(table1Latex(table, latexEscape).join("\n"));
    const json = JSON.parse(exportReport(doc, "json"));
    expect(json.table1.rows[1].cells.find((c: { id: string }) => c.id === "tau2.avg")).toMatchObject({ rank: 1, spread: { passes: 2 } });
    expect(json.table1.rows[0].provenance[1].userSimulator).toBe("sim on u");
    const shared = scrubForShare(doc);
    expect(shared.table1!.rows[0]!.provenance[0]!.runs[0]).toEqual({ id: "run", name: "run b1", status: "succeeded" });
    expect(provenanceLines(shared.table1!.rows[1]!)).toEqual(provenanceLines(table.rows[1]!));
  });

  it("VitaBench: a checkpoint's runs are a row of their own, never merged with the base model's; Avg and Overall as the paper's", () => {
    const vcfg = (dataset: string) => cfg(dataset, { reward: { judge: { node: "j", model: "judge" } } });
    const runs: Table1Run[] = [
      ...["delivery", "instore", "ota", "cross"].map((d) => ({ id: `b-${d}`, name: `base ${d}`, status: "succeeded", config: vcfg(`vitabench:${d}`), checkpoint: null })),
      { id: "c-delivery", name: "ckpt delivery", status: "succeeded", config: vcfg("vitabench:delivery"), checkpoint: 'run "train" step 40' },
      ...["retail", "telecom", "airline"].map((d) => ({ id: `t-${d}`, name: `base ${d}`, status: "succeeded", config: cfg(`tau2:${d}`), checkpoint: null })),
    ];
    const vitaPoints = [
      ...[["delivery", 0.1], ["instore", 0.12], ["ota", 0.08], ["cross", 0.156]].flatMap(([d, v]) => pts(`b-${d}`, 1, { "val/vitabench/avg@1": v as number, "val/vitabench/tasks": 100 })),
      ...pts("c-delivery", 1, { "val/vitabench/avg@1": 0.3, "val/vitabench/tasks": 100 }),
    ];
    const vitabench = buildVitaTable(runs, vitaPoints);
    expect(vitabench!.rows.map((r) => r.policy)).toEqual(["Qwen/Qwen3-8B on vllm", 'checkpoint of run "train" step 40 (Qwen/Qwen3-8B on vllm)']);
    const t = buildTable1({
      runs,
      points: [...tau2("t-retail", 1, "retail", 0.3), ...tau2("t-telecom", 1, "telecom", 0.25), ...tau2("t-airline", 1, "airline", 0.35)],
      passPoints: [],
      passes: new Map(),
      vitabench,
    })!;
    const [base, ckpt] = t.rows;
    const v = (r: typeof base, id: string) => r!.cells.find((c) => c.id === id)!;
    expect([v(base, "vitabench.delivery").value, v(base, "vitabench.avg").value, v(base, "vitabench.avg").partial]).toEqual([10, 11.4, false]);
    expect(v(base, "tau2.avg").value).toBe(30);
    // BFCL not run: Overall is the mean of the two averages that exist, marked partial.
    expect(v(base, "overall")).toMatchObject({ value: 20.7, partial: true });
    expect([v(ckpt, "vitabench.delivery").value, v(ckpt, "vitabench.instore").value, v(ckpt, "vitabench.avg").partial]).toEqual([30, null, true]);
  });
});
