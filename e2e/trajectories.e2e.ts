/**
 * Trajectory browsing in Chromium: rehearsed vs real with a JSON diff and checklist verdicts, keyboard
 * navigation, deep links, filters in the URL, the group view, and model output that tries to run script.
 * Data is seeded straight into the e2e database (global-setup writes its URL to .run/e2e-db-url).
 */
import { expect, test, type BrowserContext } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { seedRun, seedTrajectory, seedXssTrajectory, XSS } from "../test/seed";
import { signUp } from "./sign-up";
import { seedOutcomeRun, USER_SIMULATOR_FAILURE } from "../test/fixtures/outcome-episodes";

const password = "trajectory-viewer-pw";
const email = `traj-${crypto.randomBytes(4).toString("hex")}@example.test`;

let prisma: PrismaClient;
let runId: string;
let diffTrajectoryId: string;
let longId: string;
let xssId: string;
let listOrder: string[];
let outcomes: Awaited<ReturnType<typeof seedOutcomeRun>>;
/** Session cookies from the one sign-up (signing in before every test would hit the auth rate limit). */
let session: Awaited<ReturnType<BrowserContext["cookies"]>>;

test.describe.serial("trajectory browsing", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    const url = fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim();
    prisma = createPrisma(url);
    const ctx = await browser.newContext({ baseURL });
    await signUp(ctx.request, baseURL!, { email, password, name: "Trajectory Reader" });
    session = await ctx.cookies();
    await ctx.close();
    const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    const run = await seedRun(prisma, { userId: user.id, name: "e2e trajectories run", trajectories: 48, steps: 3, turnsPerTrajectory: 10, instances: 6, metricSeries: 3 });
    runId = run.runId;
    longId = await seedTrajectory(prisma, { runId, step: 1, turns: 150 });
    xssId = await seedXssTrajectory(prisma, { runId, step: 2 });
    // Three episodes run by the real engine and committed by the real persistence path: success, a partial checklist reward, a failed user simulator.
    outcomes = await seedOutcomeRun(prisma, { userId: user.id, name: `e2e outcomes ${crypto.randomBytes(3).toString("hex")}` });
    // A trajectory whose first tool turn (index 2) differs between rehearsed and real.
    const differing = await prisma.$queryRaw<{ id: string }[]>`
      select t.id from trajectory t join turn u on u."trajectoryId" = t.id and u.index = 2
      where t."runId" = ${runId} and t."numTurns" = 10 and (u.fidelity->>'score')::float8 < 1 order by t.step desc limit 1`;
    diffTrajectoryId = differing[0]!.id;
    listOrder = (
      await prisma.trajectory.findMany({ where: { runId }, orderBy: [{ step: "desc" }, { groupId: "asc" }, { rolloutIndex: "asc" }, { id: "asc" }], select: { id: true } })
    ).map((t) => t.id);
  });

  test.afterAll(async () => {
    await prisma?.$disconnect();
  });

  test.beforeEach(async ({ context }) => {
    await context.addCookies(session);
  });

  test("a tool turn shows rehearsed and real side by side with a diff, fidelity and verdicts", async ({ page }) => {
    await page.goto(`/trajectories/${diffTrajectoryId}`);
    const tool = page.locator("#turn-2");
    await expect(tool.getByRole("columnheader", { name: "Rehearsed (entered the conversation)" })).toBeVisible();
    await expect(tool.getByRole("columnheader", { name: "Real (shadow execution)" })).toBeVisible();
    await expect(tool.getByTestId("fidelity")).toContainText(/fidelity 0\.\d\d/);
    await expect(tool.getByTestId("diff-summary")).toContainText(/changed|only/);
    await expect(tool.locator(".tv-diff-row.d-changed, .tv-diff-row.d-added, .tv-diff-row.d-removed").first()).toBeVisible();

    // The act turn before it: thinking collapsed, the tool call shown, verdicts with the judge's analysis one click away.
    const act = page.locator("#turn-1");
    await expect(act.locator("details.tv-think")).not.toHaveAttribute("open", "");
    await expect(act.getByTestId("tool-call")).toBeVisible();
    await expect(act.getByTestId("verdict").first()).toBeVisible();
    await act.getByRole("button", { name: "Judge analysis" }).first().click();
    await expect(act.getByTestId("verdict-analysis")).toContainText("Pass when the cited values match");
    // token counts and advantage per output
    await expect(act.locator(".tv-adv")).toContainText("adv");
    await expect(act).toContainText(/\d+ → \d+ tok/);
    // the termination reason sits on the last turn
    await expect(page.locator("#turn-9").getByTestId("termination")).toBeVisible();
    // raw JSON download: the whole trajectory, every turn and verdict
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download JSON" }).click()]);
    expect(download.suggestedFilename()).toBe(`trajectory-${diffTrajectoryId}.json`);
    const raw = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
    expect(raw.id).toBe(diffTrajectoryId);
    expect(raw.turns.length).toBe(10);
    expect(raw.verdicts.length).toBe(2);
    // keys are documented on the page
    await page.getByTestId("keyboard-help").locator("summary").click();
    await expect(page.getByTestId("keyboard-help")).toContainText("next / previous trajectory");
  });

  test("j/k move between turns and J/K between trajectories in list order", async ({ page }) => {
    const at = 5;
    const id = listOrder[at]!;
    await page.goto(`/trajectories/${id}`);
    await expect(page.locator("#turn-0")).toBeVisible();
    await page.keyboard.press("j");
    await expect(page.locator("#turn-0")).toHaveAttribute("aria-current", "step");
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await expect(page.locator("#turn-2")).toHaveAttribute("aria-current", "step");
    await expect(page).toHaveURL(/#turn-2$/);
    await page.keyboard.press("k");
    await expect(page.locator("#turn-1")).toHaveAttribute("aria-current", "step");
    // Keys faster than renders: three presses dispatched before React can render once still move three turns.
    await page.evaluate(() => {
      for (let i = 0; i < 3; i++) window.dispatchEvent(new KeyboardEvent("keydown", { key: "j", bubbles: true }));
    });
    await expect(page.locator("#turn-4")).toHaveAttribute("aria-current", "step");
    await expect(page).toHaveURL(/#turn-4$/);

    await page.keyboard.press("Shift+J");
    await expect(page).toHaveURL(new RegExp(`/trajectories/${listOrder[at + 1]}`));
    await expect(page.locator("#turn-0")).toBeVisible();
    await page.keyboard.press("]");
    await expect(page).toHaveURL(new RegExp(`/trajectories/${listOrder[at + 2]}`));
    await expect(page.getByRole("button", { name: "‹ Previous" })).toBeEnabled();
    await page.keyboard.press("Shift+K");
    await expect(page).toHaveURL(new RegExp(`/trajectories/${listOrder[at + 1]}`));
    await expect(page.getByRole("button", { name: "Next ›" })).toBeEnabled();
    await page.keyboard.press("[");
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}`));
  });

  test("a deep link to a turn beyond the first page scrolls to it and highlights it", async ({ page }) => {
    await page.goto(`/trajectories/${longId}#turn-130`);
    const target = page.locator("#turn-130");
    await expect(target).toHaveAttribute("aria-current", "step");
    await expect(target).toBeInViewport();
    await expect(page.locator("#turn-0")).not.toBeInViewport();
  });

  test("the list keeps filters in the URL and shows a group's rollouts side by side", async ({ page }) => {
    await page.goto(`/runs/${runId}/trajectories`);
    await expect(page.getByTestId("trajectory-row").first()).toBeVisible();
    await expect(page.getByTestId("trajectory-count")).toContainText("50 in this run");
    const reason = "checklist_complete";
    await page.getByLabel("Termination reason").selectOption(reason);
    await expect(page).toHaveURL(/reason=checklist_complete/);
    const rows = page.getByTestId("trajectory-row");
    await expect(rows.first()).toContainText(reason);
    const expected = await prisma.trajectory.count({ where: { runId, terminationReason: reason } });
    await expect(page.getByTestId("trajectory-count")).toContainText(`${expected} match`);
    for (const text of await rows.allTextContents()) expect(text).toContain(reason);
    // reload keeps the filter
    await page.reload();
    await expect(page.getByLabel("Termination reason")).toHaveValue(reason);
    await page.getByLabel("Termination reason").selectOption("");
    await expect(page).not.toHaveURL(/reason=/);

    // sort by reward: the worst rollouts first, kept in the URL
    await page.getByLabel("Sort").selectOption("reward_asc");
    await expect(page).toHaveURL(/sort=reward_asc/);
    await expect(rows.first().locator(".tb-reward-cell")).toHaveText("0");
    await page.getByLabel("Sort").selectOption("step");
    await expect(page).not.toHaveURL(/sort=/);

    // j/k select rows, each press moving on from the last even when presses come faster than renders.
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      for (let i = 0; i < 3; i++) window.dispatchEvent(new KeyboardEvent("keydown", { key: "j", bubbles: true }));
    });
    await expect(rows.nth(3)).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("k");
    await expect(rows.nth(2)).toHaveAttribute("aria-selected", "true");
    await expect(rows.nth(3)).toHaveAttribute("aria-selected", "false");

    await rows.first().getByRole("button", { name: /show group/ }).click();
    await expect(page).toHaveURL(/group=/);
    const members = page.getByTestId("group-member");
    await expect(members).toHaveCount(4);
    await expect(members.first().getByTestId("adv-act")).not.toHaveText("—");
    await members.nth(2).getByRole("link", { name: "Open rollout 2" }).click();
    await expect(page).toHaveURL(/\/trajectories\/[0-9a-f-]{36}/);
    await expect(page.getByRole("heading", { name: /rollout 2/ })).toBeVisible();
  });

  test("the outcome badge is the benchmark's own: a partial checklist reward is a failure, and an errored episode says why it could not run", async ({ page }) => {
    const badge = page.getByTestId("trajectory-outcome");
    // 1 of 4 checklist items passed, a required one failed: reward 0.25, and no green success badge.
    await page.goto(`/trajectories/${outcomes.ids.partial}`);
    await expect(page.getByTestId("trajectory-reward")).toHaveText("0.25");
    await expect(badge).toHaveText("failure");
    await expect(badge).toHaveClass(/o-failure/);
    await expect(page.locator(".tv-termination")).toContainText("judge_required_failed");
    await expect(page.getByTestId("trajectory-error")).toHaveCount(0);

    await page.goto(`/trajectories/${outcomes.ids.complete}`);
    await expect(badge).toHaveText("success");
    await expect(badge).toHaveClass(/o-success/);

    // The user simulator refused the prompt: the cause is on the page, not only in the downloaded JSON.
    await page.goto(`/trajectories/${outcomes.ids.errored}`);
    await expect(badge).toHaveText("error");
    await expect(page.getByTestId("trajectory-error")).toContainText(`user simulator failed: ${USER_SIMULATOR_FAILURE}`);
    await expect(page.getByTestId("parse-error")).toHaveText("user simulator error: USER_ERROR");
    await expect(page.getByTestId("termination-cause")).toHaveText(`user simulator failed: ${USER_SIMULATOR_FAILURE}`);

    // The run page and the runs list say how many episodes were left out, and why.
    await page.goto(`/runs/${outcomes.runId}`);
    const card = page.getByTestId("run-errored-episodes-card");
    await expect(card).toContainText("1 of 3 episodes errored");
    await expect(card).toContainText(`user simulator failed: 1 — e.g. user simulator failed: ${USER_SIMULATOR_FAILURE}`);
    await page.goto("/runs");
    await expect(page.locator(`tr[data-run-id="${outcomes.runId}"]`).getByTestId("run-errored-episodes")).toHaveText("1 of 3 episodes errored (left out)");
  });

  test("model output with script, onerror images and markdown links renders as inert text", async ({ page }) => {
    const dialogs: string[] = [];
    page.on("dialog", async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    await page.goto(`/trajectories/${xssId}`);
    await expect(page.locator("#turn-1")).toContainText("window.__xss");
    await expect(page.locator("#turn-0")).toContainText(XSS.script);
    await expect(page.locator("#turn-0")).toContainText(XSS.link);
    await expect(page.getByTestId("parse-error")).toContainText("JSON_DECODE_ERROR");
    // open every collapsed part so all payloads are in the DOM
    await page.keyboard.press("t");
    await page.locator("#turn-1").getByRole("button", { name: "Judge analysis" }).click();
    await expect(page.getByTestId("verdict-analysis")).toContainText(XSS.img);
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(await page.locator("main img, main svg, main script").count()).toBe(0);
    expect(await page.locator('main a[href^="javascript:"], main a[href*="evil.example"]').count()).toBe(0);

    const before = page.url();
    await page.locator("#turn-0").getByText("click for a refund", { exact: false }).click();
    await page.locator("#turn-0").getByText("open the policy", { exact: false }).click();
    await page.waitForTimeout(300);
    expect(page.url()).toBe(before);
    expect(dialogs).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();

    // the list and group views render the same fields as text too
    await page.goto(`/runs/${runId}/trajectories?stepMin=2&stepMax=2&instance=${encodeURIComponent(`retail-xss${XSS.img}`)}`);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(1);
    await page.getByTestId("trajectory-row").getByRole("button", { name: /show group/ }).click();
    await expect(page.getByTestId("group-member")).toContainText("JSON_DECODE_ERROR");
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(await page.locator("main img, main svg, main script").count()).toBe(0);
    expect(dialogs).toEqual([]);
  });
});
