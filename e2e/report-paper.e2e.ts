/**
 * A report that reads like a short paper: notes with a GFM table, a formula, an embedded chart and the
 * embedded result table render the same in the app and through the share link (no account), and the
 * Markdown export contains all four. Data is seeded through Prisma (.run/e2e-db-url).
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { seedRun } from "../test/seed";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const email = `paper-${suffix}@example.test`;
const password = "paper-e2e-password";
const runName = `paper-run-${suffix}`;
const title = `Short paper ${suffix}`;
const notes = [
  "## Setup",
  "",
  "| Setting | Value |",
  "|:---|---:|",
  "| tasks per step | 8 |",
  "| <b>raw</b> | $k=4$ |",
  "",
  "The objective is $$\\mathcal{J}(\\theta)=\\frac{1}{G}\\sum_{i=1}^{G} r_i$$ over each group.",
  "",
  "```envace-chart",
  "metric: reward/act/mean",
  "caption: Act reward during training",
  "```",
  "",
  "```envace-table",
  "caption: Main results",
  "```",
].join("\n");

let prisma: PrismaClient;
let author: BrowserContext;
let reportUrl: string;
let shareUrl: string;

/** What a reader sees of the report body, independent of links that only the app has. */
async function snapshot(page: Page) {
  const body = page.getByTestId("report-notes");
  await expect(body.locator(".katex").first()).toBeVisible();
  await expect(body.getByTestId("embedded-chart").locator(`path[data-series="${runName}"]`)).toHaveCount(1);
  return body.evaluate((el) => ({
    text: (el as HTMLElement).innerText,
    tables: [...el.querySelectorAll("table")].map((t) => [...t.querySelectorAll("tr")].map((r) => [...r.querySelectorAll("th,td")].map((c) => (c as HTMLElement).innerText.trim()))),
    formulas: [...el.querySelectorAll(".katex annotation")].map((a) => a.textContent),
    figures: [...el.querySelectorAll("figure[data-testid=embedded-chart]")].map((f) => ({
      caption: f.querySelector(":scope > figcaption")?.textContent,
      series: [...f.querySelectorAll("path[data-series]")].map((p) => p.getAttribute("data-series")),
      d: [...f.querySelectorAll("path[data-series]")].map((p) => p.getAttribute("d")),
    })),
    scripts: el.querySelectorAll("script, [onerror], [onload]").length,
    headings: [...el.querySelectorAll("h3,h4,h5,h6")].map((h) => `${h.tagName}:${h.textContent}`),
  }));
}

test.describe.serial("a report written like a paper", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    author = await browser.newContext({ baseURL, acceptDownloads: true });
    await signUp(author.request, baseURL!, { email, password, name: "Paper Author" });
    const user = await prisma.user.update({ where: { email }, data: { role: "member" }, select: { id: true } });
    const { runId } = await seedRun(prisma, { userId: user.id, name: runName, trajectories: 32, steps: 4, turnsPerTrajectory: 4, instances: 4, metricSeries: 3, metricPoints: 20 });
    await prisma.trajectory.createMany({
      data: ["p1", "p2"].flatMap((instanceId, i) =>
        [0, 1].map((rolloutIndex) => ({
          runId, step: 99, phase: "eval", instanceId, groupId: `eval:${instanceId}`, rolloutIndex, paradigm: "rehearse",
          reward: i === 0 ? 1 : 0, outcome: i === 0 ? "success" : "failure", terminationReason: "checklist_complete",
          summary: { dataSource: "tau2-retail", won: i === 0 },
        })),
      ),
    });
    const page = await author.newPage();
    await page.goto(`/reports/new?runs=${runId}`);
    await expect(page.getByRole("button", { name: `Remove ${runName}` })).toBeVisible();
    await page.getByLabel("Title").fill(title);
    await page.getByLabel(/^Notes/).fill(notes);
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

  test("renders the table, the formula, the figure and the result table the same in the app and the share link", async ({ browser, baseURL }) => {
    const page = await author.newPage();
    await page.goto(reportUrl);
    // The notes embed the results, so they come first and no standalone table repeats them.
    await expect(page.getByRole("heading", { name: "Report", exact: true })).toBeVisible();
    await expect(page.getByTestId("result-table")).toHaveCount(1);
    await expect(page.getByTestId("embedded-table")).toContainText(runName);
    const inApp = await snapshot(page);
    expect(inApp.tables[0]).toEqual([
      ["Setting", "Value"],
      ["tasks per step", "8"],
      ["<b>raw</b>", expect.stringContaining("k")],
    ]);
    expect(inApp.formulas).toEqual(["k=4", "\\mathcal{J}(\\theta)=\\frac{1}{G}\\sum_{i=1}^{G} r_i"]);
    expect(inApp.figures).toEqual([{ caption: "Figure 1: Act reward during training", series: [runName], d: [expect.stringMatching(/^M/)] }]);
    expect(inApp.text).toContain("Table 1: Main results");
    expect(inApp.scripts).toBe(0);

    const anon = await browser.newContext({ baseURL, acceptDownloads: true });
    const shared = await anon.newPage();
    await shared.goto(shareUrl);
    await expect(shared.getByRole("heading", { name: title })).toBeVisible();
    const viaLink = await snapshot(shared);
    expect(viaLink).toEqual(inApp);

    const [download] = await Promise.all([shared.waitForEvent("download"), shared.getByRole("button", { name: "Markdown" }).click()]);
    const md = fs.readFileSync((await download.path())!, "utf8");
    expect(md).toContain("| Setting | Value |\n|:---|---:|\n| tasks per step | 8 |");
    expect(md).toContain("$$\\mathcal{J}(\\theta)=\\frac{1}{G}\\sum_{i=1}^{G} r_i$$");
    expect(md).toMatch(/!\[Figure 1: Act reward during training\]\(data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+\)/);
    expect(md).toContain("*Figure 1: Act reward during training*");
    expect(md).toContain(`| step | ${runName} |`);
    expect(md).toContain(`| ${runName} | 50.00 | 50.00 | 50.00 | 50.00 |`);
    expect(md).toContain("*Table 1: Main results*");
    await anon.close();
    await page.close();
  });
});
