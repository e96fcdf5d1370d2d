/**
 * Train, then evaluate the trained policy, in Chromium on the embedded node: a 2-step training run
 * launched from the new-run form saves a checkpoint; "Evaluate this checkpoint…" opens the form prefilled
 * (the checkpoint, a benchmark picker), an evaluation in 2 independent passes runs, its page names the
 * training run and step it evaluated and its passes with their spread, and the training run's page lists
 * it. A step that is not a checkpoint is refused on the field. Tiny configs: the CPU model is slow.
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const email = `ckpt-${suffix}@example.test`;
const password = "checkpoint-e2e-password";
const trainName = `trained ${suffix}`;

let prisma: PrismaClient;
let context: BrowserContext;
let trainId = "";

/** Wait for the run to end; a failed run fails the test with its error. */
async function succeeded(runId: string, timeout: number) {
  await expect
    .poll(
      async () => {
        const r = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, error: true } });
        if (r.status === "failed" || r.status === "cancelled") throw new Error(`run ${runId} ${r.status}: ${r.error}`);
        return r.status;
      },
      { timeout, intervals: [2000] },
    )
    .toBe("succeeded");
}

const fill = async (page: Page, field: string, value: string) => {
  const input = page.locator(`#field-${field}`);
  await input.scrollIntoViewIfNeeded();
  await input.fill(value);
};

test.describe.serial("train, then evaluate the trained policy", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    context = await browser.newContext({ baseURL });
    await signUp(context.request, baseURL!, { email, password, name: "Checkpoint Tester" });
    await prisma.user.update({ where: { email }, data: { role: "member" } });
  });

  test.afterAll(async () => {
    await context?.close();
    await prisma?.$disconnect();
  });

  test("a 2-step training run from the form saves a checkpoint", async () => {
    test.setTimeout(480_000);
    const page = await context.newPage();
    await page.goto("/runs/new");
    await page.locator("#run-name").fill(trainName);
    // The quickstart, two steps of two tasks × two rollouts, a checkpoint at step 2.
    await page.locator("details.section").filter({ hasText: "Sampling per role" }).locator("summary").first().click();
    for (const [field, value] of [
      ["schedule-steps", "2"],
      ["schedule-saveEvery", "2"],
      ["schedule-evalEvery", "100"],
      ["data-poolSize", "2"],
      ["data-instancesPerStep", "2"],
      ["data-rolloutsPerInstance", "2"],
      ["sampling-act-maxTokens", "64"],
      ["sampling-rehearse-maxTokens", "64"],
      ["sampling-evalAct-maxTokens", "64"],
      ["sampling-evalRehearse-maxTokens", "64"],
    ] as const)
      await fill(page, field, value);
    await page.getByRole("button", { name: "Launch run" }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    trainId = page.url().split("/runs/")[1]!;
    await succeeded(trainId, 420_000);

    await page.reload();
    const checkpoints = page.getByTestId("run-checkpoints");
    const row = checkpoints.locator("tr[data-step='2']");
    await expect(row).toBeVisible();
    await expect(row.getByRole("link", { name: "Evaluate this checkpoint…" })).toBeVisible();
    // The embedded node keeps full weights, not LoRA adapters: nothing to download.
    await expect(row.getByRole("link", { name: "Download adapter" })).toHaveCount(0);
    await expect(page.getByTestId("run-evaluations")).toHaveCount(0);
    await expect(page.getByText("No evaluations of this run's checkpoints yet.")).toBeVisible();
  });

  test("Evaluate this checkpoint… opens the form prefilled; two passes run, with lineage both ways", async () => {
    test.setTimeout(480_000);
    const page = await context.newPage();
    await page.goto(`/runs/${trainId}`);
    await page.getByTestId("run-checkpoints").locator("tr[data-step='2']").getByRole("link", { name: "Evaluate this checkpoint…" }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/new\\?evaluate=${trainId}&step=2$`));
    await expect(page.getByRole("heading", { name: "Evaluate a checkpoint" })).toBeVisible();
    const card = page.getByTestId("checkpoint-card");
    await expect(card).toContainText(`Evaluating a checkpoint of ${trainName}`);
    await expect(card.locator("#checkpoint-step")).toHaveValue("2");
    // The benchmark picker: BFCL, τ², the built-in domains; it starts on the training run's own dataset.
    const benchmark = card.locator("#benchmark");
    await expect(benchmark).toHaveValue("builtin:shop");
    // (Imported datasets and MCP servers follow when other tests left some.)
    expect((await benchmark.locator("optgroup").evaluateAll((groups) => groups.map((g) => g.getAttribute("label")))).slice(0, 4)).toEqual(["BFCL v4", "τ²-bench", "VitaBench", "Built-in domains"]);
    await expect(benchmark.locator("option", { hasText: "BFCL v4 (choose categories below)" })).toHaveCount(1);
    await expect(benchmark.locator("option", { hasText: "τ²-Bench retail" })).toHaveCount(1);
    await expect(benchmark.locator("option", { hasText: "τ²-Bench (retail, telecom, airline)" })).toHaveCount(1);
    await expect(benchmark.locator('optgroup[label="VitaBench"] option')).toHaveText([
      "VitaBench delivery", "VitaBench in-store", "VitaBench OTA", "VitaBench cross-domain",
      "VitaBench delivery (English)", "VitaBench in-store (English)", "VitaBench OTA (English)", "VitaBench cross-domain (English)",
    ]);
    // Choosing BFCL shows its category picker; back to the shop for a short run.
    await benchmark.selectOption("bfcl:multi_turn");
    await expect(page.getByText("Multi-turn").first()).toBeVisible();
    await benchmark.selectOption("builtin:shop");
    await expect(page.locator("#run-name")).toHaveValue(`${trainName} (step 2) on builtin:shop`);
    await fill(page, "repeats", "2");
    await expect(page.getByTestId("run-summary")).toBeVisible();
    await page.getByRole("button", { name: "Launch run" }).click();

    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    const evalId = page.url().split("/runs/")[1]!;
    await expect(page.getByTestId("run-lineage")).toHaveText(`Evaluates the checkpoint of ${trainName} at step 2, in 2 independent passes.`);
    await succeeded(evalId, 420_000);
    await page.reload();
    const passes = page.getByTestId("run-passes");
    await expect(passes.locator("tbody tr")).toHaveCount(3);
    await expect(page.getByTestId("run-passes-mean")).toContainText("±");
    await expect(page.getByTestId("run-logs")).toContainText(`sampling the checkpoint of run "${trainName}" at step 2: node "embedded" sampling session`);

    // The lineage link leads to the training run, which lists the evaluation.
    await page.getByTestId("run-lineage").getByRole("link", { name: trainName }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${trainId}$`));
    const evaluations = page.getByTestId("run-evaluations");
    await expect(evaluations.getByRole("row").filter({ hasText: `${trainName} (step 2) on builtin:shop` })).toContainText("step 2");
    await expect(page.getByTestId("run-checkpoints").locator("tr[data-step='2'] td").nth(5)).toHaveText("1");
  });

  test("a step that is not a checkpoint is refused on the field", async () => {
    const page = await context.newPage();
    await page.goto(`/runs/new?evaluate=${trainId}&step=9`);
    const card = page.getByTestId("checkpoint-card");
    await expect(card.locator("#checkpoint-step")).toHaveValue("9");
    await page.getByRole("button", { name: "Launch run" }).click();
    await expect(card.getByRole("alert")).toHaveText(`run "${trainName}" has no checkpoint at step 9 (it has checkpoints at steps 2)`);
    await expect(page).toHaveURL(/\/runs\/new\?evaluate=/);
  });
});
