/**
 * BFCL's web-search and memory_vector categories end to end against real Postgres and a real worker
 * process, on their doubles: a search node in SerpAPI's shape (test/doubles/search-node.ts, registered as a
 * node of kind search with its key stored like node keys) and an embedding node in vLLM's shape
 * (test/doubles/embeddings-node.ts, fixed vectors). The policy is a scripted model behind the vLLM double:
 * web search — search, fetch the first result's page, answer from it; memory — store each prerequisite
 * message with archival_memory_add, retrieve before answering. Also the launch check on `bfcl.*` nodes.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../../../contracts/run-config";
import { bfclOutcomeOfSummary } from "../../../../lib/bfcl/outcome";
import { launchProblems } from "../../../../lib/launch-check";
import { latestReport } from "../../../../lib/node-health";
import { encryptSecret } from "../../../../lib/secrets";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../../../test/helpers";
import { startEmbeddingsDouble, type EmbeddingsDouble } from "../../../../test/doubles/embeddings-node";
import { startSearchDouble, type SearchDouble } from "../../../../test/doubles/search-node";
import { startVllmDouble, type VllmDouble, type VllmRequest } from "../../../../test/doubles/vllm-openai";
import { hasBfclData } from "../../../../test/fixtures/bfcl-data";
import { markDoctorPassed } from "../../../../test/fixtures/doctor-report";
import { spawnTsx, type Child } from "../../../../test/processes";
import { loadMemoryQuestions, loadPrereqConversation } from "../memory/data";
import { loadWebSearchQuestions } from "./web-search";

const databaseUrl = inject("databaseUrl");
const EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2";

/** Fixed vectors: a text's vector counts its letters a, e and o (checkable by hand). */
const fixedVector = (t: string) => [1 + (t.match(/a/g)?.length ?? 0), t.match(/e/g)?.length ?? 0, t.match(/o/g)?.length ?? 0];
const cosine = (a: number[], b: number[]) => {
  const n = (v: number[]) => Math.hypot(...v);
  return a.reduce((s, x, i) => s + x * b[i], 0) / (n(a) * n(b));
};

const call = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const lastUserIndex = (req: VllmRequest) => req.messages.map((m) => m.role).lastIndexOf("user");

describe.skipIf(!hasBfclData())("BFCL web search and vector memory", () => {
  let member: TestUser;
  let policy: VllmDouble;
  let search: SearchDouble;
  let embeddings: EmbeddingsDouble;
  let worker: Child | undefined;
  const web = loadWebSearchQuestions("web_search_base").slice(0, 2);
  const question = loadMemoryQuestions("memory_vector").find((q) => q.scenario === "healthcare")!;
  const answerOf = new Map(web.map((q) => [q.question[0].at(-1)!.content, q.answers[0]]));

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    // Each question's page holds its answer; the search returns it first.
    search = await startSearchDouble({
      apiKey: "serp-secret",
      pages: Object.fromEntries(web.map((q, i) => [`q${i}`, `<html><body><h1>Result</h1><p>The answer is ${q.answers[0]}.</p></body></html>`])),
      results: (q, _kl, base) => {
        const i = web.findIndex((w) => w.question[0].at(-1)!.content === q);
        return i < 0 ? [] : [{ title: `Page ${i}`, link: `${base}/pages/q${i}`, snippet: `snippet ${i}` }, { title: "Other", link: `${base}/pages/none`, snippet: "other" }];
      },
    });
    embeddings = await startEmbeddingsDouble({ model: EMBEDDING_MODEL, apiKey: "emb-secret", vectors: fixedVector });
    policy = await startVllmDouble({
      model: "scripted",
      respond: (req) => `<think>\n</think>\n\n${reply(req)}`,
    });
    function reply(req: VllmRequest): string {
      const after = req.messages.slice(lastUserIndex(req) + 1).filter((m) => m.role === "tool");
      const user = String(req.messages[lastUserIndex(req)].content);
      const tools = (req.tools ?? []).map((t) => t.function.name);
      if (tools.includes("search_engine_query")) {
        if (after.length === 0) return call("search_engine_query", { keywords: user, max_results: 1 });
        if (after.length === 1) return call("fetch_url_content", { url: /'href': '([^']+)'/.exec(String(after[0].content))![1], mode: "truncate" });
        return `{'answer': '${answerOf.get(user)}', 'context': 'from the page'}`;
      }
      const isQuestion = String(req.messages[0].content).includes("For your final answer to the user");
      if (!isQuestion) return after.length === 0 ? call("archival_memory_add", { text: user.slice(0, 1900) }) : "Noted.";
      if (after.length === 0) return call("archival_memory_retrieve", { query: user, top_k: 3 });
      return `{'answer': '${question.answers[0]}', 'context': 'from memory'}`;
    }
    await prisma.node.create({ data: { name: "gt", kind: "openai", baseUrl: policy.url, settings: { openai: { maxConcurrency: 4 } } } });
    await markDoctorPassed(prisma, "gt", ["scripted"]);
    await prisma.node.create({ data: { name: "serp", kind: "search", baseUrl: search.url, apiKeyEnc: encryptSecret("serp-secret") } });
    await prisma.node.create({ data: { name: "emb", kind: "openai", baseUrl: embeddings.url, apiKeyEnc: encryptSecret("emb-secret") } });
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await Promise.all([policy?.close(), search?.close(), embeddings?.close()]);
  });

  it("the launch check names missing or wrong-kind bfcl nodes", async () => {
    const problems = async (input: RunConfigInput) => {
      const parsed = parseRunConfig(input);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return launchProblems(parsed.config, { prisma, doctorReport: (node: { id: string }, model: string) => latestReport(prisma, node.id, model) });
    };
    const base = { kind: "eval", policy: { node: "gt", model: "scripted" }, data: { dataset: "bfcl:web_search,memory_vector" }, rollout: { paradigm: "environment" } } as const;
    expect(await problems({ ...base, bfcl: { search: { node: "serp" }, embeddings: { node: "emb", model: EMBEDDING_MODEL } } })).toEqual([]);
    expect(await problems({ ...base, bfcl: { search: { node: "nope" }, embeddings: { node: "serp", model: EMBEDDING_MODEL } } })).toEqual([
      { path: "bfcl.search.node", message: expect.stringMatching(/^node "nope" is not registered; add a search node \(kind search/) },
      { path: "bfcl.embeddings.node", message: expect.stringMatching(/^node "serp" is of kind search; bfcl.embeddings.node needs an OpenAI-compatible node/) },
    ]);
    // Without them the categories are not run, and a selection of only those is refused, naming what it needs.
    expect(parseRunConfig(base)).toMatchObject({ ok: false, errors: [{ path: "data.dataset", message: expect.stringMatching(/nothing to run: web_search_base needs a search node.*memory_vector needs an embedding node/) }] });
  });

  it("runs web_search_base, web_search_no_snippet and memory_vector tasks against the doubles", { timeout: 600_000 }, async () => {
    worker = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, WORKER_CONCURRENCY: "1", ENVACE_WEB_FETCH_ALLOW_PRIVATE: "1" });
    const caller = await callerFor(member.headers);
    const ids = [...web.map((q) => q.id), web[0].id.replace("web_search_base", "web_search_no_snippet"), question.id];
    const run = await caller.runs.create({
      name: "bfcl-agentic",
      config: {
        kind: "eval",
        policy: { node: "gt", model: "scripted" },
        data: { dataset: "bfcl:web_search,memory_vector", instanceIds: ids },
        bfcl: { search: { node: "serp" }, embeddings: { node: "emb", model: EMBEDDING_MODEL } },
        rollout: { paradigm: "environment", maxAssistantTurns: 100, maxMicroSteps: 400, promptBudgetTokens: 1_000_000 },
      },
    });
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 500_000, `run to finish\n${worker.output()}`);
    expect(done.error, worker.output()).toBeNull();
    expect(policy.rejected).toEqual([]);

    // The search node got upstream's parameters, with the node's key (never shown in the run).
    expect(search.searches.map((s) => [s.engine, s.kl])).toEqual(ids.slice(0, 3).map(() => ["duckduckgo", "wt-wt"]));
    const { items } = await caller.trajectories.list({ runId: run.id, limit: 50 });
    const toolTexts = async (instanceId: string) => {
      const t = items.find((i) => i.instanceId === instanceId)!;
      const detail = await caller.trajectories.get({ id: t.id, turnsLimit: 50 });
      expect(bfclOutcomeOfSummary(detail.trajectory.summary), JSON.stringify(detail.turns.map((x) => [x.role, x.text.slice(0, 300)]))).toMatchObject({ scored: true, valid: true });
      return detail.turns.filter((x) => x.role === "environment").map((x) => x.text);
    };
    const [base, page] = await toolTexts(web[0].id);
    expect(base).toBe(`[{'title': 'Page 0', 'href': '${search.url}/pages/q0', 'body': 'snippet 0'}]`);
    expect(page).toBe(`{"content": "Result\\nThe answer is ${web[0].answers[0]}."}`);
    expect((await toolTexts(ids[2]))[0]).toBe(`[{'title': 'Page 0', 'href': '${search.url}/pages/q0'}]`);

    // Memory: the prerequisite messages were stored, and the retrieval ranks them by cosine over the fixed vectors.
    // (as upstream, the call string's rewriting drops a space before "(": "LDL (bad" is stored as "LDL(bad")
    const stored = loadPrereqConversation("memory_vector", "healthcare").flatMap((e) => e.turns.map((t) => t.at(-1)!.content.slice(0, 1900).replace(/ +\(/g, "(")));
    const [retrieved] = await toolTexts(question.id);
    const result = JSON.parse(retrieved).result as { id: number; similarity_score: number; text: string }[];
    const q = fixedVector(question.question[0].at(-1)!.content);
    const expected = stored
      .map((text, id) => ({ id, text, score: cosine(q, fixedVector(text)) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 3);
    expect(result.map((r) => r.text)).toEqual(expected.map((e) => e.text));
    result.forEach((r, i) => expect(r.similarity_score).toBeCloseTo(expected[i].score, 5));
    expect(embeddings.requests.flat()).toContain(stored[0]);

    const points = await prisma.metricPoint.findMany({ where: { runId: run.id, key: { startsWith: "val/bfcl/" } }, select: { key: true, value: true } });
    const m = Object.fromEntries(points.map((p) => [p.key, p.value]));
    expect([m["val/bfcl/web_search_base/accuracy"], m["val/bfcl/web_search_base/tasks"]]).toEqual([1, 2]);
    expect([m["val/bfcl/web_search_no_snippet/accuracy"], m["val/bfcl/web_search_no_snippet/tasks"]]).toEqual([1, 1]);
    expect([m["val/bfcl/memory_vector/accuracy"], m["val/bfcl/memory_vector/tasks"]]).toEqual([1, 1]);
    expect(m["val/bfcl/summary/web_search"]).toBe(1);

  });
});
