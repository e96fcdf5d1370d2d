/**
 * The browser's tRPC link against the real route over real HTTP (node:http with its default header
 * limit, as `next start`): the compare page's chart batch — every open panel of five runs with many
 * metric keys, asked for in one tick — loads in full. As one GET the same batch is refused with 431.
 */
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../../server/root";
import { startApiServer, type ApiServer } from "../../test/api-server";
import { prisma, resetDatabase, signUp } from "../../test/helpers";
import { seedRunRows } from "../../test/fixtures/run-rows";
import { groupPanels, MAX_CHART_POINTS, panelQueryKeys } from "../_components/charts/chart-math";
import { appBatchLink, MAX_BATCH_ITEMS, statusAwareFetch } from "./trpc-links";

let server: ApiServer;
let cookie: string;
const runIds: string[] = [];

/** 60 metric keys over the chart families, with the min/max/mean statistics the engine writes. */
const keys = [
  ...["episode/reward", "critic/act/advantages", "critic/rehearse/advantages", "critic/act/score", "critic/rehearse/score", "response_length/act", "response_length/rehearse", "prompt_length"].flatMap((b) =>
    ["mean", "min", "max"].map((s) => `${b}/${s}`),
  ),
  ...["fidelity/score", "fidelity/exact_rate", "judge/pass_rate", "judge/calls", "actor/kl", "actor/entropy", "actor/loss", "generation/failed_share"],
  ...["timing_s/gen", "timing_s/step", "perf/throughput", "perf/total_num_tokens", "termination/finished", "termination/max_turns"],
  ...Array.from({ length: 22 }, (_, i) => `val/shop_catalogue_with_a_long_name_${String(i).padStart(2, "0")}/test_score`),
];

beforeAll(async () => {
  await resetDatabase();
  server = await startApiServer();
  const user = await signUp("member");
  cookie = user.headers.get("cookie")!;
  const metrics = Object.fromEntries(keys.map((k, i) => [k, [0.1 * i, 0.2 * i, 0.3 * i]]));
  for (let i = 0; i < 5; i++) runIds.push(await seedRunRows(prisma, { name: `run ${i}`, createdById: user.id, metrics }));
});

afterAll(async () => {
  await server?.close();
});

/** One metrics.series query per (open panel, run), as MetricPanels asks for them on the compare page. */
function chartQueries(client: ReturnType<typeof createTRPCClient<AppRouter>>) {
  const panels = groupPanels(keys);
  return runIds.flatMap((runId) =>
    panels.flatMap((panel) => panelQueryKeys(panel, true).map((keys) => client.metrics.series.query({ runId, keys, maxPoints: MAX_CHART_POINTS, axis: "step", stepRange: null }))),
  );
}

describe("the browser's tRPC link", () => {
  it("loads every series of five runs in one tick (batched by POST)", async () => {
    const client = createTRPCClient<AppRouter>({ links: [appBatchLink({ url: `${server.url}/api/trpc`, headers: { cookie } })] });
    const queries = chartQueries(client);
    expect(queries.length).toBeGreaterThan(MAX_BATCH_ITEMS); // more than one batch
    const results = await Promise.all(queries);
    for (const r of results) {
      expect(r.series.length).toBeGreaterThan(0);
      for (const s of r.series) expect(s.points).toHaveLength(3);
    }
  });

  it("the same batch as one GET is refused by the web server with 431 (why the link posts), and the error says so", async () => {
    const statuses: number[] = [];
    const fetchRecording = async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const get = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.url}/api/trpc`, transformer: superjson, headers: { cookie }, fetch: fetchRecording })] });
    const settled = await Promise.allSettled(chartQueries(get));
    expect(statuses).toEqual([431]);
    expect(settled.every((s) => s.status === "rejected")).toBe(true);
    // With the link's fetch, the failure names the status rather than "Unexpected end of JSON input".
    const named = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.url}/api/trpc`, transformer: superjson, headers: { cookie }, fetch: statusAwareFetch })] });
    const failure = (await Promise.allSettled(chartQueries(named))).find((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(failure!.reason).toBeInstanceOf(TRPCClientError);
    expect((failure!.reason as Error).message).toBe("the server answered HTTP 431 Request Header Fields Too Large");
  });

  it("the route refuses a batch larger than it allows, and mutations stay POST-only", async () => {
    const paths = Array.from({ length: 101 }, () => "metrics.keys").join(",");
    const input = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [i, { json: { runId: runIds[0] } }]));
    const res = await fetch(`${server.url}/api/trpc/${paths}?batch=1`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify(input) });
    expect(res.status).toBe(400);
    const get = await fetch(`${server.url}/api/trpc/reports.create?input=${encodeURIComponent(JSON.stringify({ json: { title: "x", runIds } }))}`, { headers: { cookie } });
    expect(get.status).toBe(405);
  });
});
