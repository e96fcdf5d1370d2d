/**
 * Studies and evaluation suites in Chromium, on the real product (embedded node, worker, web): a member
 * launches a study of 2 paradigms × 2 seeds from the form — a grid over a setting that does not exist is
 * refused on its field first — whose base config trains with two evaluation suites. When the runs have
 * finished, the study page shows each group's charts as mean ± std bands and the per-benchmark table
 * (n = 2 per group), and a run's page charts both suites (val/<suite>/…), tables them, and links to the
 * trajectories of one suite.
 */
import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import { signUpInBrowser } from "./sign-up";

const base = {
  kind: "train",
  policy: { node: "embedded", model: "tiny-gpt" },
  data: { dataset: "builtin:shop", instancesPerStep: 2, rolloutsPerInstance: 2, seed: 7 },
  rollout: { paradigm: "rehearse", maxAssistantTurns: 2, maxUserTurns: 2, maxMicroSteps: 6, promptBudgetTokens: 1024, responseBudgetTokens: 48 },
  sampling: {
    act: { temperature: 1, topP: 1, maxTokens: 48 },
    rehearse: { temperature: 1, topP: 1, maxTokens: 48 },
    evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 48 },
    evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 48 },
  },
  optim: { lr: 0.001 },
  schedule: {
    steps: 2,
    saveEvery: 100,
    evalEvery: 2,
    evalSuites: [
      { name: "shop-test", dataset: "builtin:shop", split: "test", limit: 2 },
      { name: "shop-train", dataset: "builtin:shop", split: "train", instanceIds: ["shop-price-tea-0"] },
    ],
  },
};

test("a study of 2 paradigms × 2 seeds with two evaluation suites: bands, the per-benchmark table, and each run's suites", async ({ page }) => {
  test.setTimeout(900_000);
  await signUpInBrowser(page, { name: "Study Lead", email: `study-${crypto.randomBytes(4).toString("hex")}@example.test`, password: "study-lead-password" });

  await page.getByRole("link", { name: "Studies" }).click();
  await expect(page.getByRole("heading", { name: "Studies" })).toBeVisible();
  await page.getByRole("link", { name: "New study" }).click();
  await page.getByLabel("Study name").fill("paradigms e2e");
  await page.getByLabel(/^Base run config/).fill(JSON.stringify(base, null, 2));
  await page.getByRole("button", { name: "Add a setting" }).click();
  const axis = page.getByTestId("grid-axis");
  await axis.getByLabel("Setting", { exact: true }).fill("rollout.paradigms");
  await axis.getByLabel("values of rollout.paradigms").fill("rehearse, environment");
  await page.getByLabel("Seeds per group").fill("2");
  await expect(page.getByTestId("study-summary")).toContainText("2 groups");
  await page.getByRole("button", { name: "Launch study" }).click();
  await expect(page.getByTestId("error-grid.0.setting")).toHaveText("no such run setting (did you mean rollout.paradigm?)");

  // The right setting offers its choices.
  await axis.getByLabel("Setting", { exact: true }).fill("rollout.paradigm");
  await axis.getByLabel("rehearse", { exact: true }).check();
  await axis.getByLabel("environment", { exact: true }).check();
  await expect(page.getByTestId("study-summary")).toContainText("2 groups (rollout.paradigm ∈ {rehearse, environment}) × 2 seeds = 4 runs");
  await page.getByRole("button", { name: "Launch study" }).click();

  await expect(page).toHaveURL(/\/studies\/[0-9a-f-]{36}$/);
  const view = page.getByTestId("study-view");
  await expect(view.getByRole("heading", { name: "paradigms e2e" })).toBeVisible();
  await expect(view.getByTestId("study-group")).toHaveText([/paradigm=rehearse/, /paradigm=environment/]);
  // Live updates follow the runs to the end.
  await expect(view.getByTestId("study-progress")).toHaveText("4 of 4 runs finished", { timeout: 840_000 });
  await expect(view.getByTestId("study-groups").getByText("succeeded")).toHaveCount(4);

  const table = view.getByTestId("study-table");
  await expect(table.locator("tbody tr")).toHaveCount(3);
  for (const benchmark of ["builtin:shop", "shop-test (builtin:shop)", "shop-train (builtin:shop)"]) {
    const row = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: new RegExp(`^${benchmark.replace(/[()]/g, "\\$&")}`) }) });
    await expect(row.getByTestId("study-cell")).toHaveCount(2);
    for (const cell of await row.getByTestId("study-cell").all()) await expect(cell).toContainText(/success \d+(\.\d+)?% ± \d+(\.\d+)?%reward .+ ± .+ · n=2\/2/);
  }

  // Charts: one line per group with its mean ± std band.
  const charts = view.getByTestId("study-charts");
  const reward = charts.locator("figure").filter({ hasText: "val/shop-test/reward/mean — mean ± std across seeds" });
  await expect(reward).toBeVisible();
  await expect(reward.locator(".chart-legend")).toContainText("paradigm=rehearse (n=2)");
  await expect(reward.locator(".chart-legend")).toContainText("paradigm=environment (n=2)");
  await expect(reward.locator('path[data-series="paradigm=rehearse (n=2)"]')).toHaveCount(1);
  await expect(charts.locator("figure").filter({ hasText: /^reward\/mean — mean ± std/ }).locator("path[opacity='0.12']")).toHaveCount(2);

  // A run of the study: both suites charted and tabled, and one suite's trajectories.
  await view.getByTestId("study-groups").getByRole("link", { name: /paradigm=environment · seed 8/ }).click();
  await expect(page.getByTestId("run-study")).toBeVisible();
  const evaluations = page.getByTestId("evaluation-table");
  await expect(evaluations.locator("tbody tr")).toHaveCount(3);
  await expect(evaluations.locator('tr[data-suite="shop-test"] td').nth(1)).toHaveText("2");
  await expect(evaluations.locator('tr[data-suite="shop-train"] td').nth(1)).toHaveText("1");
  const charted = page.getByTestId("run-charts");
  await expect(charted.locator('[data-panel="suite:shop-test"] summary')).toContainText("Evaluation suite shop-test (builtin:shop)");
  await expect(charted.locator('[data-panel="suite:shop-train"] figure').filter({ hasText: "val/shop-train/reward" })).toBeVisible();
  await evaluations.locator('tr[data-suite="shop-test"]').getByRole("link", { name: "view" }).click();
  await expect(page.getByTestId("suite-filter")).toHaveValue("shop-test");
  await expect(page.getByTestId("trajectory-row")).toHaveCount(2);
  await expect(page.getByTestId("trajectory-row").first()).toContainText("2 · shop-test");
});

test("the new-run form edits evaluation suites and shows their refusals on the suite's fields", async ({ page }) => {
  await signUpInBrowser(page, { name: "Suite Editor", email: `suites-${crypto.randomBytes(4).toString("hex")}@example.test`, password: "suite-editor-password" });
  await page.goto("/runs/new");
  const add = page.getByTestId("add-schedule.evalSuites");
  await add.click();
  await add.click();
  const field = (i: number, f: string) => page.locator(`[data-field="schedule.evalSuites.${i}.${f}"]`);
  await field(0, "name").locator("input").fill("shop-test");
  await field(0, "dataset").locator("input").fill("builtin:shop");
  await field(0, "limit").locator("input").fill("2");
  // The second suite repeats the name, names a domain that does not exist and no tasks.
  await field(1, "name").locator("input").fill("shop-test");
  await field(1, "dataset").locator("input").fill("builtin:nope");
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(field(1, "name").getByRole("alert")).toHaveText('suite name "shop-test" is already used by suite 0');
  await expect(field(1, "dataset").getByRole("alert")).toHaveText('unknown built-in domain "nope" (built in: builtin:shop)');
  await expect(field(1, "instanceIds").getByRole("alert")).toHaveText("name the suite's tasks: instanceIds, or limit (a seeded sample of that many tasks of the split)");

  await field(1, "name").locator("input").fill("shop-train");
  await field(1, "dataset").locator("input").fill("builtin:shop");
  await field(1, "instanceIds").locator("input").fill("shop-price-tea-0");
  await expect(page.getByTestId("run-summary")).toContainText("on its own split and the suites shop-test (builtin:shop, 2 tasks × 1), shop-train (builtin:shop, 1 task × 1)");
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const config = JSON.parse((await page.getByTestId("run-config").textContent()) ?? "{}") as { schedule: { evalSuites: unknown[] } };
  expect(config.schedule.evalSuites).toEqual([
    { name: "shop-test", dataset: "builtin:shop", split: "test", instanceIds: [], limit: 2, repeats: 1 },
    { name: "shop-train", dataset: "builtin:shop", split: "test", instanceIds: ["shop-price-tea-0"], repeats: 1 },
  ]);
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(page.getByRole("button", { name: /Cancel/ })).toHaveCount(0, { timeout: 60_000 });
});
