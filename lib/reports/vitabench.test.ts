import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig } from "../../contracts/run-config";
import { sampleDocument } from "../../test/fixtures/report-document";
import type { MetricPointRow } from "./bfcl";
import { scrubForShare } from "./document";
import { exportReport, toMarkdown } from "./export";
import { buildVitaTable, vitaAvgText, type VitaRunInput } from "./vitabench";

const cfg = (dataset: string, policy = "Qwen/Qwen3-8B", kind: "eval" | "train" = "eval"): RunConfig => {
  const parsed = parseRunConfig({ kind, policy: { node: "vllm", model: policy }, data: { dataset }, trialsPerTask: 2, rollout: { userSimulator: { node: "u", model: "sim" } }, reward: { judge: { node: "j", model: "judge" } } });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
};
const run = (id: string, dataset: string, policy?: string, status = "succeeded", kind: "eval" | "train" = "eval"): VitaRunInput => ({ id, name: `run ${id}`, status, config: cfg(dataset, policy, kind) });
const points = (runId: string, m: Record<string, number>, step = 1): MetricPointRow[] => Object.entries(m).map(([k, value]) => ({ runId, key: `val/vitabench/${k}`, step, value }));

describe("the VitaBench report group (Table 1)", () => {
  const runs = [run("d", "vitabench:delivery/en"), run("i", "vitabench:instore/en"), run("d2", "vitabench:delivery/en"), run("z", "vitabench:delivery", "other-8b"), run("f", "vitabench:instore", "other-8b", "failed"), run("t", "vitabench:ota/en", undefined, "succeeded", "train")];
  const pts = [
    ...points("d", { "avg@1": 0.4, "avg@2": 0.5, "pass@2": 0.75, "pass^2": 0.25, tasks: 100, trials: 200 }),
    ...points("d", { "avg@2": 0.99, tasks: 100, trials: 200 }, 0),
    ...points("i", { "avg@2": 0.3, "pass@2": 0.4, "pass^2": 0.2, tasks: 2, trials: 3, errored: 1 }),
    ...points("z", { "avg@2": 0.125, "pass@2": 0.2, "pass^2": 0.05, tasks: 100, trials: 200 }),
  ];

  it("gathers one policy's runs per language into Cross, Deliv., Inst., OTA and Avg; a domain not run is — with the reason", () => {
    const t = buildVitaTable(runs, pts)!;
    expect(t.columns.map((c) => c.label)).toEqual(["Cross", "Deliv.", "Inst.", "OTA", "Avg"]);
    expect(t.rows.map((r) => r.label)).toEqual(["Qwen/Qwen3-8B on vllm · English", "other-8b on vllm · Chinese"]);
    const [en, zh] = t.rows;
    const cell = (r: typeof en, k: string) => r!.cells.find((c) => c.key === k)!;
    expect(cell(en, "delivery")).toMatchObject({ value: 50, passAtK: 75, passHatK: 25, k: 2, tasks: 100, runId: "d", note: 'also evaluated by "run d2" (the first run listed is shown)' });
    expect(cell(en, "instore")).toMatchObject({ value: 30, errored: 1, note: "1 trial(s) errored and are left out; 2 of the domain's 100 tasks" });
    expect(cell(en, "cross")).toMatchObject({ value: null, note: expect.stringContaining("its task file cross_domain/tasks_en.json is not shipped with the product") });
    // A training run's evaluations are not Table 1's.
    expect(cell(en, "ota")).toMatchObject({ value: null, runId: null });
    expect(en!.avg).toBeNull();
    expect(vitaAvgText(en!)).toBe("— (40.00 partial)");
    expect(en!.avgNote).toBe("mean of Deliv., Inst. only: Cross, OTA not run");
    expect(cell(zh, "delivery").value).toBe(12.5);
    expect(cell(zh, "instore")).toMatchObject({ value: null, note: 'run "run f" (failed) has no VitaBench results yet' });
    expect(t.k).toBe(2);
    expect(buildVitaTable([run("b", "vitabench:delivery/en")].map((r) => ({ ...r, config: { ...r.config, data: { ...r.config.data, dataset: "builtin:shop" } } })), [])).toBeNull();
  });

  it("Avg is the mean of the four when all four ran", () => {
    const four = ["cross", "delivery", "instore", "ota"].map((d) => run(d, `vitabench:${d}/en`));
    const pts4 = four.flatMap((r, i) => points(r.id, { "avg@2": [0.1, 0.2, 0.3, 0.4][i]!, tasks: 100, trials: 200 }));
    const [row] = buildVitaTable(four, pts4)!.rows;
    expect(row!.avg).toBe(25);
    expect(row!.avgNote).toBeNull();
  });

  it("goes into the Markdown, CSV and LaTeX exports and keeps its rows on a share link without run ids", () => {
    const vitabench = buildVitaTable(runs, pts);
    const doc = sampleDocument({ vitabench });
    const md = toMarkdown(doc);
    expect(md).toContain("## VitaBench\n\n| Policy | Cross | Deliv. | Inst. | OTA | Avg |");
    expect(md).toContain("| Qwen/Qwen3-8B on vllm · English | — | 50.00 | 30.00 | — | — (40.00 partial) |");
    expect(md).toContain("- Qwen/Qwen3-8B on vllm · English, Cross: no VitaBench cross (en) evaluation of this policy in the report; its task file cross_domain/tasks_en.json is not shipped");
    expect(exportReport(doc, "csv")).toContain("Qwen/Qwen3-8B on vllm · English,VitaBench Deliv.,2,100,50.00,75.00,,,");
    expect(exportReport(doc, "csv")).toContain("Qwen/Qwen3-8B on vllm · English,VitaBench Avg,,,,,40.00,,\"mean of Deliv., Inst. only");
    expect(exportReport(doc, "latex")).toContain("Qwen/Qwen3-8B on vllm · English & -- & 50.00 & 30.00 & -- & -- (40.00) \\\\");
    const shared = scrubForShare({ ...doc, runs: [{ ...doc.runs[0]!, id: "d" }, { ...doc.runs[1]!, id: "i" }] }).vitabench!;
    expect(shared.rows[0]!.cells.map((c) => c.runId)).toEqual([null, "run-1", "run-2", null]);
    expect(toMarkdown(sampleDocument())).not.toContain("VitaBench");
  });

  it("writes policy names as literal text in the Markdown (no tag, no link)", () => {
    const payload = '<script>alert(1)</script>[j](javascript:alert(2))';
    const vitabench = buildVitaTable([run("x", "vitabench:delivery/en", payload)], points("x", { "avg@2": 0.5, tasks: 100, trials: 200 }));
    const md = toMarkdown(sampleDocument({ vitabench }));
    const block = md.slice(md.indexOf("## VitaBench"));
    expect(block).not.toMatch(/<[A-Za-z!/?]/);
    expect(block).not.toMatch(/(?<!\\)\]\(javascript:/);
    expect(block).toContain("| &lt;script&gt;alert(1)&lt;/script&gt;[j\\](javascript:alert(2)) on vllm · English | — | 50.00 |");
    expect(block).toContain("- &lt;script&gt;alert(1)&lt;/script&gt;[j\\](javascript:alert(2)) on vllm · English, Cross: ");
  });
});

