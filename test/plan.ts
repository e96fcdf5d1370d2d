/**
 * What a piece of server code reads: every statement it sends through the pg pool is recorded at the
 * driver and replayed under EXPLAIN (ANALYZE), and the rows its scans of one table return are summed
 * (rows × loops of every scan node, plus the rows its filters dropped). For tests that a page's cost stays bounded as a table grows.
 */
import { vi } from "vitest";
import pg from "pg";

type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
};

/** Rows a scan looked at: those it returned (per loop) and those its filter dropped. */
function rowsRead(node: PlanNode, table: string): number {
  const scan = node["Relation Name"] === table && /Scan/.test(node["Node Type"]);
  const own = scan ? node["Actual Rows"] * node["Actual Loops"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((s, p) => s + rowsRead(p, table), 0);
}

/** Rows of `table` read by the SELECT statements `fn` sends (and how many of them name the table). */
export async function rowsReadBy(table: string, fn: () => Promise<unknown>): Promise<{ total: number; statements: number }> {
  const recorded: { text: string; values: unknown[] }[] = [];
  const original = pg.Pool.prototype.query;
  const spy = vi.spyOn(pg.Pool.prototype, "query").mockImplementation(function (this: pg.Pool, ...args: unknown[]) {
    const q = args[0] as { text?: string; values?: unknown[] } | string;
    if (typeof q === "object" && q.text) recorded.push({ text: q.text, values: q.values ?? [] });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    let total = 0;
    let statements = 0;
    for (const q of recorded.filter((r) => /^\s*(select|with)/i.test(r.text) && new RegExp(`\\b${table}\\b`).test(r.text))) {
      const res = await client.query(`explain (analyze, format json) ${q.text}`, q.values);
      total += rowsRead((res.rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan, table);
      statements++;
    }
    return { total, statements };
  } finally {
    await client.end();
  }
}
