/**
 * A BFCL v4 evaluation launched from the new-run form in Chromium, on the embedded node's tiny model: the
 * BFCL preset, categories chosen in the picker, a subset of tasks; the run page then shows the per-category
 * results in the paper's columns, and a failing task's trajectory names the check that failed.
 */
import { expect, test, type BrowserContext } from "@playwright/test";
import crypto from "node:crypto";
import { signUp } from "./sign-up";

const password = "bfcl-evaluator-pw";
const email = `bfcl-${crypto.randomBytes(4).toString("hex")}@example.test`;
let session: Awaited<ReturnType<BrowserContext["cookies"]>>;

test.describe.serial("BFCL evaluation", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    const ctx = await browser.newContext({ baseURL });
    await signUp(ctx.request, baseURL!, { email, password, name: "BFCL Evaluator" });
    session = await ctx.cookies();
    await ctx.close();
  });

  test.beforeEach(async ({ context }) => {
    await context.addCookies(session);
  });

  test("launch from the form, see per-category results and a failing task's named check", async ({ page }) => {
    test.setTimeout(600_000);
    // Earlier files' runs may still keep the embedded node busy (a busy node fails the run's 5 s health check).
    const nodeUrl = `http://127.0.0.1:${Number(process.env.E2E_NODE_PORT ?? 8799)}/v1/models`;
    const answersQuickly = () => fetch(nodeUrl, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    await expect.poll(async () => (await answersQuickly()) && (await answersQuickly()), { timeout: 180_000, intervals: [2000] }).toBe(true);
    await page.goto("/runs/new");
    await page.getByLabel("Preset").selectOption({ label: "BFCL v4 evaluation (choose categories)" });
    const picker = page.getByTestId("bfcl-picker");
    await expect(picker).toBeVisible();
    // The preset picks the multi-turn column; keep its base category and add simple Python.
    await expect(picker.locator('input[name="bfcl-multi_turn_long_context"]')).toBeChecked();
    for (const c of ["multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]) await picker.locator(`input[name="bfcl-${c}"]`).uncheck();
    await picker.locator('input[name="bfcl-simple_python"]').check();
    // Web search needs a search node (bfcl.search): offered, disabled, with the reason.
    await expect(picker.locator('input[name="bfcl-web_search_base"]')).toBeDisabled();
    await expect(picker.getByTestId("bfcl-picker-summary")).toContainText("bfcl:simple_python,multi_turn_base");
    // Task ids are an advanced Data setting (collapsed): the picker's link opens it and focuses the field.
    const taskIds = page.locator('[data-field="data.instanceIds"] input');
    await expect(taskIds).toBeHidden();
    await picker.getByRole("button", { name: "choose task ids" }).click();
    await expect(taskIds).toBeFocused();
    await taskIds.fill("multi_turn_base_0, simple_python_0, simple_python_1");
    await expect(picker.getByTestId("bfcl-picker-summary")).toContainText("3 tasks (data · instanceIds) × 1 trial");
    await page.locator("#run-name").fill("e2e bfcl evaluation");
    await page.getByRole("button", { name: "Launch run" }).click();

    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.getByTestId("run-status")).toHaveText(/^(succeeded|failed)$/, { timeout: 540_000 });
    // A failed run shows its error: make it the test's message.
    if ((await page.getByTestId("run-status").textContent()) === "failed") expect(await page.locator(".error-card").textContent()).toBe("");
    await expect(page.getByTestId("run-status")).toHaveText("succeeded");
    const results = page.getByTestId("bfcl-results");
    await expect(results).toBeVisible();
    const categories = results.getByTestId("bfcl-categories");
    await expect(categories.locator('[data-category="multi_turn_base"]')).toContainText("1 of 200");
    await expect(categories.locator('[data-category="simple_python"]')).toContainText("2 of 400");
    for (const column of ["Web", "Memory", "Multi-turn", "Non-live", "Live", "Irrelevance", "Avg"]) await expect(results.getByRole("columnheader", { name: column, exact: true })).toBeVisible();
    await expect(results.getByTestId("bfcl-run-notes")).toContainText("web_search_base (needs a search node");

    const runId = page.url().split("/").pop()!;

    // The tiny model fails the multi-turn task: its trajectory names the failing check.
    await results.getByRole("link", { name: "Browse the failing tasks" }).click();
    await page.getByTestId("trajectory-row").filter({ hasText: "multi_turn_base_0" }).first().getByRole("link").click();
    const outcome = page.getByTestId("bfcl-outcome");
    await expect(outcome).toBeVisible();
    await expect(outcome.getByTestId("bfcl-status")).toHaveText("failed");
    await expect(outcome.getByTestId("bfcl-check")).toHaveText(/^(turn \d+: .+|force-terminated after \d+ of 4 turns .+)$/);
    await expect(page.getByTestId("verdicts").first()).toBeVisible();

    // A report of the run shows the paper's BFCL columns, with the columns not run marked and explained.
    await page.goto(`/reports/new?runs=${runId}`);
    await expect(page.getByRole("button", { name: "Remove e2e bfcl evaluation" })).toBeVisible();
    await page.getByLabel("Title").fill("BFCL e2e report");
    await page.getByRole("button", { name: "Create report" }).click();
    await expect(page).toHaveURL(/\/reports\/[0-9a-f-]{36}$/);
    const bfcl = page.getByTestId("bfcl-table");
    for (const column of ["Web", "Memory", "Multi-turn", "Non-live", "Live", "Irrelevance", "Avg"]) await expect(bfcl.getByRole("columnheader", { name: column, exact: true })).toBeVisible();
    await expect(bfcl.getByTestId("bfcl-web")).toHaveText("—");
    await expect(bfcl.getByTestId("bfcl-notes")).toContainText("Web: not run: web_search_base");
  });
});
