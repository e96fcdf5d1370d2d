/**
 * Test-time rehearsal in Chromium, end to end on the embedded node: launch a three-arm comparison (no
 * rehearsal / parallel N / sequential N) on the shop domain from the UI, watch the report's Table 3 fill
 * in as the real worker evaluates the arms, open a test-time episode from the trajectory list (private
 * attempts expandable as trajectories, their assessments, the memory, the committed execution), and
 * export the report with Table 3.
 */
import { expect, test, type BrowserContext } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const email = `tts-${suffix}@example.test`;
const password = "test-time-e2e-password";
const name = `tts ${suffix}`;

let prisma: PrismaClient;
let context: BrowserContext;

test.describe.serial("test-time comparison", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    context = await browser.newContext({ baseURL });
    await signUp(context.request, baseURL!, { email, password, name: "Test-time Tester" });
    await prisma.user.update({ where: { email }, data: { role: "member" } });
  });

  test.afterAll(async () => {
    await context?.close();
    await prisma?.$disconnect();
  });

  test("launch from the UI, read a test-time episode and produce the Table-3 report", async () => {
    test.setTimeout(600_000);
    const page = await context.newPage();
    await page.goto("/runs");
    await page.getByRole("link", { name: "Test-time comparison" }).click();
    await expect(page.getByRole("heading", { name: "Test-time comparison" })).toBeVisible();

    // The paper's sampling is the default; make the episodes small enough for the CPU node.
    await expect(page.locator("#tt-act-temperature")).toHaveValue("1");
    await expect(page.locator("#tt-assessment-temperature")).toHaveValue("0.01");
    await page.locator("#tt-name").fill(name);
    await page.locator("#tt-tasks").fill("2");
    await page.locator("#tt-attempts").fill("2");
    await page.locator("#tt-act-maxTokens").fill("40");
    await page.locator("#tt-rehearse-maxTokens").fill("40");
    await page.locator("#tt-assessment-maxTokens").fill("24");
    await page.locator("#tt-memory-maxTokens").fill("32");
    await page.locator("#tt-transcript").fill("256");
    await page.locator("#tt-max-assistant").fill("2");
    await expect(page.getByTestId("test-time-summary")).toContainText(
      "Launches 3 evaluation runs — No test-time scaling, Parallel rehearsal (N=2), Sequential rehearsal (N=2) — on Shop (built-in)",
    );
    await page.getByRole("button", { name: "Launch comparison" }).click();

    // The report opens at once and fills in its Table 3 as the arms finish.
    await expect(page).toHaveURL(/\/reports\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { name })).toBeVisible();
    const table = page.getByTestId("test-time-table");
    await expect(table.getByRole("columnheader")).toHaveText(["Setting", "Shop (built-in)", "Overall", "Δ"]);
    await expect(table.getByTestId("test-time-row").locator("th")).toHaveText(["No test-time scaling", "Parallel rehearsal (N=2)", "Sequential rehearsal (N=2)"]);
    // Wait for the worker to finish the three arms (a failed arm fails the test with its error).
    const reportId = page.url().split("/reports/")[1]!;
    const { runIds } = await prisma.report.findUniqueOrThrow({ where: { id: reportId }, select: { runIds: true } });
    expect(runIds).toHaveLength(3);
    await expect
      .poll(
        async () => {
          const runs = await prisma.run.findMany({ where: { id: { in: runIds } }, select: { name: true, status: true, error: true } });
          const failed = runs.filter((r) => r.status === "failed");
          if (failed.length) throw new Error(failed.map((r) => `${r.name}: ${r.error}`).join("\n"));
          return runs.filter((r) => r.status === "succeeded").length;
        },
        { timeout: 480_000, intervals: [2000] },
      )
      .toBe(3);
    // Each cell carries n, the episodes it is computed over; each Δ its 95 % interval.
    const shopCells = table.locator('td[data-benchmark="builtin:shop"]');
    const cell = /^\d+\.\d\d n = \d+( \(\+\d+ errored\))?$/;
    await expect(shopCells).toHaveText([cell, cell, cell], { timeout: 30_000 });
    const overall = table.getByTestId("test-time-row").locator("td:nth-last-child(2)");
    await expect(overall).toHaveText([/^\d+\.\d\d$/, /^\d+\.\d\d$/, /^\d+\.\d\d$/]);
    await expect(table.getByTestId("test-time-row").first().locator("td").last()).toHaveText("—");
    await expect(table.getByTestId("test-time-row").nth(1).locator("td").last()).toHaveText(/^([+−]\d+\.\d\d|±0\.00) \[−?\d+\.\d, −?\d+\.\d\]$/);

    // The Markdown export carries Table 3 in the paper's layout.
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Markdown", exact: true }).click();
    const file = await (await download).path();
    const md = fs.readFileSync(file!, "utf8");
    expect(md).toContain("## Test-time rehearsal (Table 3 layout)");
    expect(md).toContain("| Setting | Shop (built-in) | Overall | Δ |");
    expect(md).toMatch(/\| Parallel rehearsal \(N=2\) \| \d+\.\d\d \(n = \d+\) \| \d+\.\d\d \| [+−±]\d+\.\d\d \[−?\d+\.\d, −?\d+\.\d\] \|/);

    // From the parallel arm's run to its trajectory list, and on to a test-time episode.
    await shopCells.nth(1).getByRole("link").click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    const runId = page.url().split("/runs/")[1]!;
    // An evaluation counts its progress in episodes, not steps.
    await expect(page.getByTestId("run-progress")).toContainText(/^episode \d+ of \d+ · ETA/);
    await expect(page.getByRole("progressbar")).toHaveAttribute("aria-label", /^episode \d+ of \d+$/);
    await page.goto(`/runs/${runId}/trajectories`);
    const rows = page.getByTestId("trajectory-row");
    await expect(rows).toHaveCount(2);
    await rows.first().getByTestId("test-time-episode-link").click();

    const episode = page.getByTestId("test-time-episode");
    await expect(episode).toBeVisible();
    await expect(episode.getByTestId("test-time-mode")).toHaveText("parallel, 2 private attempts");
    await expect(episode.getByTestId("test-time-sampling").locator("tr", { hasText: "assessment" }).locator("td")).toHaveText(["0.01", "1", "24"]);
    const attempts = episode.getByTestId("private-attempt");
    await expect(attempts).toHaveCount(2);
    await expect(attempts.first().getByTestId("attempt-feedback")).toContainText("Assessment");
    await expect(attempts.first().getByTestId("attempt-feedback")).toContainText("Suggestion");
    await expect(episode.getByTestId("test-time-memory")).toBeVisible();

    // An attempt expands into the normal trajectory timeline: rehearsed turns, never a real environment.
    await attempts.first().getByTestId("expand-attempt").click();
    const attemptTurns = attempts.first().getByTestId("turn");
    await expect(attemptTurns.first()).toBeVisible();
    expect(await attempts.first().locator(".tv-role.role-environment").count()).toBe(0);
    await expect(attemptTurns.first()).toHaveAttribute("id", /^a0-turn-0$/);

    // The committed execution expands too, and its page links back to the episode.
    const committed = episode.getByTestId("committed-execution");
    await committed.getByTestId("expand-committed").click();
    await expect(committed.getByTestId("turn").first()).toBeVisible();
    await committed.getByRole("link", { name: "open as a trajectory" }).click();
    await expect(page.getByTestId("test-time-link")).toContainText("This execution followed 2 private test-time attempts");
    await page.getByTestId("test-time-link").getByRole("link").click();
    await expect(page.getByTestId("test-time-episode")).toBeVisible();
    // A private attempt's own page says what it is.
    await page.getByTestId("private-attempt").nth(1).getByRole("link", { name: "open as a trajectory" }).click();
    await expect(page.getByTestId("test-time-link")).toContainText("Private test-time attempt 2");
    await expect(page.getByTestId("trajectory-view").locator(".tv-outcome").first()).toHaveText("private");
  });
});
