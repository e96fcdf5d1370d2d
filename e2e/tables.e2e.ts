/**
 * The paper's tables in the report view: a report over a BFCL run (no web search, no vector memory), a τ² retail run
 * and a FinMCP replay run of one policy shows Table 1 in the paper's layout — the grouped header BFCL V4 / τ²-Bench /
 * VitaBench, then Overall —, the columns not run as "—" with their reason, the partial averages marked †, each row's
 * provenance, and Table 2 with the replay labelled; the share link (no account) shows the same, and the CSV export
 * carries the same values and marks. Data is seeded through Prisma (.run/e2e-db-url).
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Prisma, PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { BFCL_V4_ENTRY_COUNTS } from "../lib/bfcl/aggregate";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const email = `tables-${suffix}@example.test`;
const password = "tables-e2e-password";
const title = `Paper tables ${suffix}`;
const policy = { node: `gpu-${suffix}`, model: "Qwen/Qwen3-8B" };

let prisma: PrismaClient;
let author: BrowserContext;
let reportUrl: string;
let shareUrl: string;

async function seed(userId: string, name: string, config: Record<string, unknown>, metrics: Record<string, number>, trajectories: Prisma.TrajectoryCreateManyInput[] = []): Promise<string> {
  const run = await prisma.run.create({
    data: { name, kind: "eval", status: "succeeded", config: config as Prisma.InputJsonValue, configVersion: 1, paradigm: "environment", policyNode: policy.node, totalSteps: 1, createdById: userId },
    select: { id: true },
  });
  await prisma.metricPoint.createMany({ data: Object.entries(metrics).map(([key, value]) => ({ runId: run.id, key, step: 1, value, ts: new Date(Date.UTC(2026, 0, 1)) })) });
  if (trajectories.length) await prisma.trajectory.createMany({ data: trajectories.map((t) => ({ ...t, runId: run.id })) });
  return run.id;
}

/** What a reader sees of Table 1: the two header rows and the body cells as text, and the "—" cells' reasons. */
async function table1Of(page: Page) {
  const t = page.getByTestId("table1");
  await expect(t).toBeVisible();
  return t.evaluate((el) => ({
    head: [...el.querySelectorAll("thead tr")].map((r) => [...r.querySelectorAll("th")].map((c) => (c as HTMLElement).innerText.trim())),
    body: [...el.querySelectorAll("tbody tr")].map((r) => [...r.querySelectorAll("th,td")].map((c) => (c as HTMLElement).innerText.trim())),
    reasons: Object.fromEntries([...el.querySelectorAll("td[data-testid]")].filter((c) => (c as HTMLElement).innerText.trim() === "—").map((c) => [c.getAttribute("data-testid"), c.getAttribute("title")])),
    provenance: (el.querySelector("[data-testid=table1-provenance]") as HTMLElement).innerText,
  }));
}

test.describe.serial("the paper's tables in a report", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    author = await browser.newContext({ baseURL, acceptDownloads: true });
    await signUp(author.request, baseURL!, { email, password, name: "Tables Author" });
    const user = await prisma.user.update({ where: { email }, data: { role: "member" }, select: { id: true } });
    const categories = Object.keys(BFCL_V4_ENTRY_COUNTS).filter((c) => !["web_search_base", "web_search_no_snippet", "memory_vector"].includes(c));
    const bfcl = await seed(
      user.id,
      `bfcl-${suffix}`,
      { kind: "eval", policy, data: { dataset: "bfcl:all" } },
      Object.fromEntries(categories.flatMap((c) => [[`val/bfcl/${c}/accuracy`, 0.5], [`val/bfcl/${c}/tasks`, BFCL_V4_ENTRY_COUNTS[c as keyof typeof BFCL_V4_ENTRY_COUNTS]]])),
    );
    const tau2 = await seed(user.id, `tau2-${suffix}`, { kind: "eval", policy, data: { dataset: "tau2:retail" }, rollout: { userSimulator: { node: "sim", model: "user-8b" } } }, { "val/tau2/retail/avg": 0.3, "val/tau2/retail/tasks": 10, "val/tau2/retail/trials": 10 });
    const detail = (index: number, classLevel1: string, TP: number, FP: number, FN: number) => ({ index, mode: "replay", classLevel1, classDifficulty: "easy", task: "single_step", gold: [], pred: [], TP, FP, FN, consist: FP + FN === 0 ? 1 : 0, turns: [], messagesPred: [{ role: "user", content: "x" }] });
    const fin = await seed(
      user.id,
      `finmcp-${suffix}`,
      { kind: "eval", policy, data: { dataset: "finmcp:samples" }, finmcp: { environment: "replay", folder: "finmcp-synthetic" } },
      { "val/finmcp/replay": 1, "val/finmcp/samples": 2, "val/finmcp/macro_F1": 0.75 },
      [detail(0, "MarketResearch", 1, 0, 0), detail(1, "FundResearch", 1, 1, 1)].map((d, i) => ({
        runId: "",
        step: 1,
        phase: "eval",
        instanceId: String(i),
        groupId: `eval:${i}`,
        rolloutIndex: 0,
        paradigm: "environment",
        reward: 0,
        outcome: d.consist ? "success" : "failure",
        terminationReason: "finished",
        summary: { dataSource: "finmcp", judgements: [{ detail: { finmcp: d } }] },
      })),
    );
    const page = await author.newPage();
    await page.goto(`/reports/new?runs=${[bfcl, tau2, fin].join(",")}`);
    await expect(page.getByRole("button", { name: `Remove finmcp-${suffix}` })).toBeVisible();
    await page.getByLabel("Title").fill(title);
    await page.getByRole("button", { name: "Create report" }).click();
    await expect(page).toHaveURL(/\/reports\/[0-9a-f-]{36}$/);
    reportUrl = page.url();
    await page.getByRole("button", { name: "Create share link" }).click();
    shareUrl = await page.getByTestId("share-url").inputValue();
    await page.close();
  });

  test.afterAll(async () => {
    await author?.close();
    await prisma?.$disconnect();
  });

  test("Table 1 in the paper's layout with the missing columns marked, Table 2 with the replay labelled, the same through the share link and in the CSV", async ({ browser, baseURL }) => {
    const page = await author.newPage();
    await page.goto(reportUrl);
    const inApp = await table1Of(page);
    expect(inApp.head).toEqual([
      ["Policy", "BFCL V4", "τ²-Bench", "VitaBench", "Overall"],
      ["Web", "Mem.", "Multi", "NoLive", "Live", "Irrel.", "Avg", "Retail", "Telecom", "Airline", "Avg", "Cross", "Deliv.", "Inst.", "OTA", "Avg"],
    ]);
    expect(inApp.body).toEqual([[`Qwen/Qwen3-8B on ${policy.node}[1]`, "—", "—", "50.00", "50.00", "50.00", "50.00", "50.00†", "30.00", "—", "—", "30.00†", "—", "—", "—", "—", "—", "40.00†"]]);
    expect(inApp.reasons["table1-bfcl.web"]).toContain("web_search_base");
    expect(inApp.reasons["table1-bfcl.memory"]).toContain("memory_vector");
    expect(inApp.reasons["table1-tau2.telecom"]).toBe("no τ² Telecom evaluation of this policy in the report");
    expect(inApp.reasons["table1-vitabench.avg"]).toBe("no VitaBench evaluation of this policy in the report");
    // A partial average is never ranked.
    await expect(page.locator("[data-testid=table1] td[data-partial][data-rank]")).toHaveCount(0);
    expect(inApp.provenance).toContain(`Policy: Qwen/Qwen3-8B on ${policy.node} (base model).`);
    expect(inApp.provenance).toContain("user simulator user-8b on sim");
    expect(inApp.provenance).toContain("data τ²-bench v0.2.0 task files");
    const fin = page.getByTestId("finmcp-table");
    await expect(fin.getByTestId("finmcp-row")).toContainText(`finmcp-${suffix}`);
    await expect(fin.getByTestId("finmcp-replay")).toBeVisible();
    await expect(fin.getByTestId("finmcp-notes")).toContainText("REPLAY: each call was answered with the recorded output");
    await expect(fin.getByTestId("finmcp-group-scenario")).toContainText("MarketResearch");

    const anon = await browser.newContext({ baseURL, acceptDownloads: true });
    const shared = await anon.newPage();
    await shared.goto(shareUrl);
    await expect(shared.getByRole("heading", { name: title })).toBeVisible();
    // The same table and provenance; only the app links the runs.
    expect(inApp.provenance).toContain(`Runs: bfcl-${suffix}, tau2-${suffix}`);
    expect(await table1Of(shared)).toEqual({ ...inApp, provenance: inApp.provenance.replace(/\nRuns: [^\n]*$/, "") });
    await expect(shared.getByTestId("finmcp-replay")).toBeVisible();

    const [download] = await Promise.all([shared.waitForEvent("download"), shared.getByRole("button", { name: "CSV" }).click()]);
    const csv = fs.readFileSync((await download.path())!, "utf8");
    expect(csv).toContain("policy,bfcl_web,bfcl_web_mark,bfcl_memory,bfcl_memory_mark,");
    expect(csv).toMatch(new RegExp(`Qwen/Qwen3-8B on ${policy.node},,"not run: [^"]*web_search_base`));
    expect(csv).toContain("50.00,partial");
    expect(csv).toMatch(/finmcp-[0-9a-f]{6},finmcp:samples,replay of the recorded gold outputs \(not upstream's live-server protocol\),yes,overall,/);
    await anon.close();
    await page.close();
  });
});
