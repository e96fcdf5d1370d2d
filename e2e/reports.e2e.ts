/**
 * Compare and reports in Chromium: tick two seeded runs, compare them (overlays, config diff, per-instance
 * outcomes), build a report, freeze and share it, open the link in a fresh context without a session,
 * export it, and revoke the link. Data is seeded through Prisma (global-setup writes the DB URL to .run/e2e-db-url).
 */
import { expect, test, type BrowserContext } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { seedRun } from "../test/seed";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const email = `reports-${suffix}@example.test`;
const password = "reports-e2e-password";
const alpha = `cmp-alpha-${suffix}`;
const beta = `cmp-beta-${suffix}`;
const title = `Retail eval ${suffix}`;

let prisma: PrismaClient;
let alphaId: string;
let betaId: string;
let reportUrl: string;
let shareUrl: string;
/** The author's browser context: signed in once (sign-in is rate limited), reused by every test. */
let author: BrowserContext;

/** A final evaluation with known outcomes: k = 2 per instance; `solved[i]` successes for instance i. */
async function addEval(runId: string, solved: Record<string, number>) {
  await prisma.trajectory.createMany({
    data: Object.entries(solved).flatMap(([instanceId, successes]) =>
      [0, 1].map((rolloutIndex) => ({
        runId,
        step: 99,
        phase: "eval",
        instanceId,
        groupId: `eval:${instanceId}`,
        rolloutIndex,
        paradigm: "rehearse",
        reward: rolloutIndex < successes ? 1 : 0,
        outcome: rolloutIndex < successes ? "success" : "failure",
        terminationReason: rolloutIndex < successes ? "checklist_complete" : "max_assistant_turns",
        summary: { dataSource: "tau2-retail", won: rolloutIndex < successes },
      })),
    ),
  });
}

test.describe.serial("compare, reports and share links", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    author = await browser.newContext({ baseURL });
    // Sign-up answers with a session cookie, which stays in this context.
    await signUp(author.request, baseURL!, { email, password, name: "Report Author" });
    const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    // Viewers cannot write reports: make sure this account can, whatever ran before.
    await prisma.user.update({ where: { id: user.id }, data: { role: "member" } });
    const common = { userId: user.id, trajectories: 32, steps: 4, turnsPerTrajectory: 4, instances: 4, metricSeries: 6, metricPoints: 60 };
    alphaId = (await seedRun(prisma, { ...common, name: alpha, paradigm: "rehearse" })).runId;
    betaId = (await seedRun(prisma, { ...common, name: beta, paradigm: "environment" })).runId;
    await addEval(alphaId, { "inst-A": 2, "inst-B": 0, "inst-C": 0 });
    await addEval(betaId, { "inst-A": 0, "inst-B": 1, "inst-C": 0 });
  });

  test.afterAll(async () => {
    await author?.close();
    await prisma?.$disconnect();
  });

  test("run page: an overview for the run's kind with act and rehearse overlaid, More panels remembered, zoom, checkpoints and node health", async () => {
    const page = await author.newPage();
    await page.goto(`/runs/${alphaId}`);
    const charts = page.getByTestId("run-charts");
    const overview = charts.locator('[data-panel="overview"]');
    await expect(overview.locator("summary")).toContainText("Overview (training)");
    await expect(overview.locator('svg[role="img"]').first()).toBeVisible();
    // A metric per role is one chart with a line per role.
    const advantages = overview.locator("figure").filter({ has: page.locator('figcaption[title="critic/{role}/advantages"]') });
    await expect(advantages.locator('path[data-series="act"]')).toHaveCount(1);
    await expect(advantages.locator('path[data-series="rehearse"]')).toHaveCount(1);
    await expect(overview.locator('figcaption[title="fidelity"]')).toBeVisible();
    // The family panels wait behind More panels; the choice is remembered for training runs.
    await expect(charts.locator('[data-panel="fidelity"]')).toHaveCount(0);
    const picker = charts.getByTestId("chart-picker");
    await picker.locator("summary").click();
    await picker.getByLabel(/Rehearsal fidelity/).check();
    await expect(charts.locator('[data-panel="fidelity"] svg[role="img"]')).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("run-charts").locator('[data-panel="fidelity"] svg[role="img"]')).toBeVisible();
    await page.getByTestId("chart-picker").locator("summary").click();
    await page.getByRole("button", { name: "Back to the default" }).click();
    await expect(charts.locator('[data-panel="fidelity"]')).toHaveCount(0);
    // The filter searches every panel, chosen or not.
    await charts.getByLabel("Filter metrics").fill("fidelity");
    await expect(charts.locator('[data-panel="fidelity"] svg[role="img"]')).toBeVisible();
    await charts.getByLabel("Filter metrics").fill("");
    await expect(page.getByTestId("run-nodes")).toContainText("embedded");
    await expect(page.getByText("No checkpoints saved yet.")).toBeVisible();

    // Drag across a chart to zoom into a step range, double-click to reset.
    const svg = overview.locator('svg[role="img"]').first();
    const box = (await svg.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect(page.getByTestId("chart-zoom")).toHaveText(/steps \d+–\d+/);
    await svg.dblclick();
    await expect(page.getByTestId("chart-zoom")).toHaveCount(0);
    // Hover reads values out.
    await svg.hover();
    await expect(charts.locator(".chart-legend strong").first()).toBeVisible();

    // Live: heartbeats alone change nothing on the page, so the browser asks for nothing.
    const requests: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/trpc/")) requests.push(r.url());
    });
    for (let i = 0; i < 4; i++) {
      await prisma.run.update({ where: { id: alphaId }, data: { heartbeatAt: new Date() } });
      await page.waitForTimeout(750);
    }
    expect(requests).toEqual([]);
    // A committed step brings a new metric onto the charts and a saved checkpoint into its list, without a reload.
    const now = new Date();
    await prisma.$transaction([
      prisma.metricPoint.createMany({ data: [1, 2, 3].map((step) => ({ runId: alphaId, key: "judge/pass_rate", step, value: step / 4 })) }),
      prisma.step.create({ data: { runId: alphaId, index: 5, kind: "train", startedAt: now, finishedAt: now, durationMs: 0 } }),
      prisma.checkpoint.create({ data: { runId: alphaId, step: 3, nodeName: "embedded", statePath: "e2e/state/3", samplerPath: "e2e/sampler/3" } }),
    ]);
    // judge/pass_rate belongs to a training run's overview.
    await expect(overview.locator('figcaption[title="judge/pass_rate"]')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("run-checkpoints")).toContainText("e2e/state/3");
    expect(requests.some((u) => u.includes("metrics.keys"))).toBe(true);
  });

  test("compare two runs: overlays, config diff, per-instance outcomes with links", async () => {
    const page = await author.newPage();
    await page.goto("/runs");
    await page.getByLabel(`Compare ${alpha}`).check();
    await page.getByLabel(`Compare ${beta}`).check();
    await page.getByTestId("compare-selected").click();
    await expect(page).toHaveURL(new RegExp(`/compare\\?runs=${alphaId}(%2C|,)${betaId}`));

    await expect(page.getByTestId("compare-runs")).toContainText(alpha);
    await expect(page.getByTestId("compare-runs")).toContainText("eval step 99");
    // One line per run in the overlays.
    const overlay = page.getByTestId("compare-charts").locator('[data-panel="reward"] figure').first();
    await expect(overlay.locator(`path[data-series="${alpha}"]`)).toHaveCount(1);
    await expect(overlay.locator(`path[data-series="${beta}"]`)).toHaveCount(1);

    const diff = page.getByTestId("config-diff");
    await expect(diff.getByRole("row", { name: /rollout\.paradigm/ })).toContainText("environment");
    await expect(diff.getByRole("row")).toHaveCount(2);

    const outcomes = page.getByTestId("outcome-table");
    await expect(outcomes.getByRole("row")).toHaveCount(3); // header + the two instances where the runs disagree
    const rowA = outcomes.getByRole("row", { name: /inst-A/ });
    await expect(rowA.getByRole("link", { name: `${alpha} on inst-A: solved, 2 of 2` })).toHaveAttribute("href", `/runs/${alphaId}/trajectories?instance=inst-A`);
    await expect(rowA.getByRole("link", { name: `${beta} on inst-A: unsolved, 0 of 2` })).toHaveAttribute("href", `/runs/${betaId}/trajectories?instance=inst-A`);
    await page.getByLabel("Only instances where the runs disagree").uncheck();
    await expect(outcomes.getByRole("row")).toHaveCount(4);
  });

  test("compare five runs with many metrics: every series loads (batched by POST); a refused series shows as failed with a retry", async () => {
    const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    // The metrics a training run writes, by family (~70 keys), on three more runs: as one GET, the batch's URL alone would pass Node's 16 KB header limit.
    const keys = [
      ...["episode/reward", "critic/act/score", "critic/rehearse/score", "critic/act/advantages", "critic/rehearse/advantages", "critic/act/returns", "critic/rehearse/returns", "response_length/act", "response_length/rehearse", "prompt_length"].flatMap((b) =>
        ["mean", "min", "max"].map((stat) => `${b}/${stat}`),
      ),
      ...["reward/mean", "reward/act/mean", "reward/rehearse/mean", "fidelity/mean", "fidelity/score", "fidelity/exact_rate", "fidelity/invalid_rate", "judge/pass_rate", "judge/calls", "judge/failures"],
      ...["actor/kl", "actor/entropy", "actor/loss", "actor/pg_loss", "actor/clip_frac", "generation/failed_share", "generation/attempted", "timing_s/gen", "timing_s/step", "timing_s/update_actor"],
      ...["perf/throughput", "perf/total_num_tokens", "perf/time_per_step", "val/avg@4", "val/pass@4", "val/builtin:shop/test_score"],
      ...Array.from({ length: 12 }, (_, i) => `val/dataset-${i}/test_score`),
    ];
    const more: string[] = [];
    for (const i of [1, 2, 3]) {
      const { runId } = await seedRun(prisma, { userId: user.id, name: `cmp-many-${i}-${suffix}`, trajectories: 8, steps: 2, turnsPerTrajectory: 2, instances: 2, metricSeries: 1, metricPoints: 2 });
      await prisma.metricPoint.createMany({
        data: [...new Set(keys)].flatMap((key, k) => [1, 2, 3, 4].map((step) => ({ runId, key, step, value: (k + step * i) / 10 }))),
        skipDuplicates: true,
      });
      more.push(runId);
    }
    const page = await author.newPage();
    const answers: { method: string; status: number }[] = [];
    page.on("response", (r) => {
      if (r.url().includes("/api/trpc/")) answers.push({ method: r.request().method(), status: r.status() });
    });
    await page.goto(`/compare?runs=${[alphaId, betaId, ...more].join(",")}`);
    const overlays = page.getByTestId("compare-charts");
    const panels = overlays.locator("details[open][data-panel]");
    await expect(panels.first()).toBeVisible();
    await expect(overlays.getByText("Loading…")).toHaveCount(0);
    expect(await panels.count()).toBeGreaterThanOrEqual(7);
    await expect(page.getByTestId("series-failed")).toHaveCount(0);
    // Every chart of every open panel has the three runs that have every key (and the two seeded ones where they have it).
    for (const figure of await panels.locator("figure").all()) expect(await figure.locator("path[data-series]").count()).toBeGreaterThanOrEqual(3);
    const advantages = overlays.locator("figure").filter({ has: page.locator('figcaption[title="critic/act/advantages/mean"]') });
    await expect(advantages.locator("path[data-series]")).toHaveCount(5);
    // Queries went out batched by POST, and none was refused.
    expect(answers.filter((a) => a.status >= 400)).toEqual([]);
    expect(answers.some((a) => a.method === "POST")).toBe(true);

    // A series the server refuses is shown as failed, naming the run and the status, with a retry.
    const seriesCalls = /\/api\/trpc\/metrics\.series/;
    await page.route(seriesCalls, (route) => route.fulfill({ status: 431, body: "" }));
    await overlays.getByLabel("X axis").selectOption("time");
    const failed = overlays.locator('[data-panel="reward"]').getByTestId("series-failed");
    await expect(failed.locator("p")).toHaveCount(5, { timeout: 30_000 });
    await expect(failed).toContainText(`${alpha}: the reward series failed to load — the server answered HTTP 431`);
    await page.unroute(seriesCalls);
    await failed.locator("p").filter({ hasText: alpha }).getByRole("button", { name: "Retry" }).click();
    await expect(failed.locator("p")).toHaveCount(4);
    await expect(failed).not.toContainText(alpha);
  });

  test("build a report, freeze it, and share a read-only link", async () => {
    const page = await author.newPage();
    await page.goto(`/compare?runs=${alphaId},${betaId}`);
    await page.getByRole("link", { name: "New report from these runs" }).click();
    await expect(page.getByRole("button", { name: `Remove ${alpha}` })).toBeVisible();
    await page.getByLabel("Title").fill(title);
    await page.getByLabel(/^Notes/).fill("EnvACE **wins** on retail.\n\n<script>window.__pwned = 1</script>");
    await page.getByRole("button", { name: "Create report" }).click();
    await expect(page).toHaveURL(/\/reports\/[0-9a-f-]{36}$/);
    reportUrl = page.url();

    const table = page.getByTestId("result-table");
    await expect(table.getByRole("columnheader", { name: "tau2-retail" })).toBeVisible();
    await expect(table.getByRole("row", { name: new RegExp(alpha) })).toContainText("33.33");
    await expect(table.getByRole("row", { name: new RegExp(beta) })).toContainText("16.67");
    await expect(page.getByTestId("report-notes").locator("strong")).toHaveText("wins");
    await expect(page.getByTestId("report-notes")).toContainText("<script>window.__pwned = 1</script>");

    await page.getByRole("button", { name: "Freeze snapshot" }).click();
    await expect(page.getByTestId("report-state")).toContainText("Frozen snapshot");
    await page.getByRole("button", { name: "Create share link" }).click();
    shareUrl = await page.getByTestId("share-url").inputValue();
    expect(shareUrl).toMatch(/\/share\/envr_[A-Za-z0-9_-]{43}$/);
    await expect(page.getByTestId("share-links")).toContainText("active");
  });

  test("the link opens without an account, shows only the report, and exports", async ({ browser, baseURL }) => {
    const ctx = await browser.newContext({ baseURL, acceptDownloads: true });
    const page = await ctx.newPage();
    await page.goto(shareUrl);
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    await expect(page.getByText("read-only")).toBeVisible();
    await expect(page.getByTestId("result-table")).toContainText(alpha);
    await expect(page.getByTestId("report-notes").locator("strong")).toHaveText("wins");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // No app chrome and no links into runs.
    await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);
    await expect(page.locator('a[href^="/runs"]')).toHaveCount(0);
    // The session-only API stays closed to this browser.
    expect((await page.request.get(`/api/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ json: { id: alphaId } }))}`)).status()).toBe(401);

    const [md] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Markdown" }).click()]);
    expect(md.suggestedFilename()).toBe(`retail-eval-${suffix}.md`);
    const markdown = fs.readFileSync((await md.path())!, "utf8");
    expect(markdown).toContain(`# ${title}`);
    expect(markdown).toContain("| Run | tau2-retail Avg@2 | tau2-retail pass@2 | Overall Avg@2 | Overall pass@2 |");
    // With the app's marks: the best of each column in bold (pass@2 is a tie).
    expect(markdown).toContain(`| ${alpha} | **33.33** | **33.33** | **33.33** | **33.33** |`);
    expect(markdown).toContain(`| ${beta} | 16.67 | **33.33** | 16.67 | **33.33** |`);

    const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "CSV" }).click()]);
    const csvText = fs.readFileSync((await csv.path())!, "utf8");
    expect(csvText.split("\r\n")).toContain(`${beta},tau2-retail,2,3,16.67,33.33,,pass_at_k,`);
    const [json] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "JSON" }).click()]);
    const parsed = JSON.parse(fs.readFileSync((await json.path())!, "utf8"));
    expect(parsed.format).toBe("envace-report/v1");
    expect(JSON.stringify(parsed)).not.toContain(alphaId);
    await ctx.close();
  });

  test("a revoked link stops working", async ({ browser, baseURL }) => {
    const page = await author.newPage();
    await page.goto(reportUrl);
    await page.getByTestId("share-links").getByRole("button", { name: "Revoke" }).click();
    await expect(page.getByTestId("share-links")).toContainText("revoked");

    const ctx = await browser.newContext({ baseURL });
    const anon = await ctx.newPage();
    await anon.goto(shareUrl);
    await expect(anon.getByRole("heading", { name: "Report unavailable" })).toBeVisible();
    await expect(anon.getByText(title)).toHaveCount(0);
    await ctx.close();
  });
});
