import { describe, expect, it } from "vitest";
import { latexEscape } from "./export";
import { buildTau2Table, tau2CellText, tau2CsvRows, tau2Latex, tau2Markdown } from "./tau2";

const points = (runId: string, step: number, m: Record<string, number>) => Object.entries(m).map(([key, value]) => ({ runId, key, step, value }));

describe("the report's τ² block", () => {
  const runs = [
    { id: "a", name: "all three" },
    { id: "b", name: "airline only" },
    { id: "c", name: "no tau2" },
  ];
  const table = buildTau2Table(runs, [
    ...points("a", 1, { "val/tau2/retail/avg": 0.5, "val/tau2/retail/tasks": 2, "val/tau2/retail/trials": 8 }),
    // The latest evaluation step counts.
    ...points("a", 2, { "val/tau2/retail/avg": 0.75, "val/tau2/retail/tasks": 2, "val/tau2/telecom/avg": 0.5, "val/tau2/telecom/tasks": 4, "val/tau2/airline/avg": 0.2, "val/tau2/airline/tasks": 5, "val/tau2/airline/errored": 1, "val/tau2/pass^1": 0.5 }),
    ...points("b", 1, { "val/tau2/airline/avg": 1, "val/tau2/airline/tasks": 3, "val/tau2/pass^1": 1 }),
    ...points("c", 1, { "val/bfcl/simple_python/accuracy": 1 }),
  ])!;

  it("Retail, Telecom, Airline and Avg (their mean); a domain not run is —, and so is Avg then", () => {
    expect(table.columns.map((c) => c.label)).toEqual(["Retail", "Telecom", "Airline", "Avg"]);
    expect(table.rows.map((r) => r.runName)).toEqual(["all three", "airline only"]);
    const [a, b] = table.rows;
    expect([a!.step, a!.cells.retail?.value, a!.cells.telecom?.value, a!.cells.airline?.value, a!.avg]).toEqual([2, 75, 50, 20, 48.33]);
    expect(table.columns.map((c) => tau2CellText(b!, c.key))).toEqual(["—", "—", "100.00", "—"]);
    expect(b!.notes).toEqual(["Retail, Telecom not run: Avg needs all three domains"]);
    expect(a!.notes).toEqual(["Airline: 1 trial(s) errored (could not be run) and are left out"]);
    expect(buildTau2Table(runs.slice(2), points("c", 1, { "val/tau2/pass^1": 1 }))).toBeNull();
  });

  it("in the Markdown, CSV and LaTeX exports", () => {
    const md = tau2Markdown(table).join("\n");
    expect(md).toContain("| Run | Retail | Telecom | Airline | Avg |\n| --- | ---: | ---: | ---: | ---: |\n| all three | 75.00 | 50.00 | 20.00 | 48.33 |\n| airline only | — | — | 100.00 | — |");
    expect(tau2CsvRows(table).filter((r) => r[0] === "airline only")).toEqual([
      ["airline only", "τ² Retail", "", "", "", "", "", "", "Retail not run"],
      ["airline only", "τ² Telecom", "", "", "", "", "", "", "Telecom not run"],
      ["airline only", "τ² Airline", "", "3", "100.00", "", "", "", ""],
      ["airline only", "τ² Avg", "", "", "", "", "", "", "Retail, Telecom not run: Avg needs all three domains"],
    ]);
    const tex = tau2Latex(table, latexEscape).join("\n");
    expect(tex).toContain("airline only & -- & -- & 100.00 & -- \\\\");
    expect(tex).toContain("\\caption{$\\tau^2$-Bench");
  });

  it("writes run names as literal text in the Markdown (no tag, no link)", () => {
    const xss = buildTau2Table([{ id: "x", name: '<img src=x onerror="alert(1)"> [j](javascript:alert(2))' }], points("x", 1, { "val/tau2/airline/avg": 1, "val/tau2/airline/tasks": 3, "val/tau2/airline/errored": 1 }))!;
    const md = tau2Markdown(xss).join("\n");
    expect(md).not.toMatch(/<[A-Za-z!/?]/);
    expect(md).not.toMatch(/(?<!\\)\]\(javascript:/);
    expect(md).toContain('| &lt;img src=x onerror="alert(1)"&gt; [j\\](javascript:alert(2)) | — | — | 100.00 | — |');
    expect(md).toContain('&lt;img src=x onerror="alert(1)"&gt; [j\\](javascript:alert(2)):\n- Retail, Telecom not run: Avg needs all three domains');
  });
});
