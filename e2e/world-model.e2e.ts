/**
 * The world-model view on the run page, in Chromium: fidelity per tool and per step and the most frequent
 * divergences with links to the turns, for a shop run (rehearse paradigm with shadow execution) and a
 * tau2 run (environment paradigm with the fidelity probe: text results and "Error: …" responses).
 * Data is seeded straight into the e2e database (global-setup writes its URL to .run/e2e-db-url).
 */
import { expect, test, type BrowserContext } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { seedRun } from "../test/seed";
import { signUp } from "./sign-up";

const password = "world-model-viewer-pw";
const email = `wm-${crypto.randomBytes(4).toString("hex")}@example.test`;

let prisma: PrismaClient;
let shopRunId: string;
let tau2RunId: string;
let session: Awaited<ReturnType<BrowserContext["cookies"]>>;

test.describe.serial("world-model view", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    const url = fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim();
    prisma = createPrisma(url);
    const ctx = await browser.newContext({ baseURL });
    await signUp(ctx.request, baseURL!, { email, password, name: "World Model Reader" });
    session = await ctx.cookies();
    await ctx.close();
    const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    shopRunId = (await seedRun(prisma, { userId: user.id, name: "e2e shop world model", domain: "shop", trajectories: 48, steps: 4, turnsPerTrajectory: 9, evalEvery: 4, metricSeries: 1 })).runId;
    tau2RunId = (
      await seedRun(prisma, { userId: user.id, name: "e2e tau2 world model", domain: "tau2", paradigm: "environment", fidelityProbe: true, trajectories: 48, steps: 3, turnsPerTrajectory: 9, metricSeries: 1 })
    ).runId;
  });

  test.afterAll(async () => {
    await prisma?.$disconnect();
  });

  test.beforeEach(async ({ context }) => {
    await context.addCookies(session);
  });

  test("shop run: per-tool fidelity, the per-step chart and divergences that link to their turns", async ({ page }) => {
    await page.goto(`/runs/${shopRunId}`);
    const view = page.getByTestId("world-model");
    await expect(view).toBeVisible();
    await expect(view.getByTestId("world-model-score")).toHaveText(/^0\.\d{3}$/);
    const tools = view.getByTestId("world-model-tools");
    for (const tool of ["get_item", "add_to_cart", "remove_from_cart", "checkout"]) await expect(tools.getByRole("rowheader", { name: tool })).toBeVisible();
    await expect(view.getByTestId("world-model-step-chart")).toHaveAttribute("aria-label", "Fidelity per step, steps 1 to 4");

    const divergences = view.getByTestId("world-model-divergences");
    const price = divergences.getByTestId("world-model-divergence").filter({ hasText: "$.price" });
    await expect(price).toContainText("get_item");
    await expect(price.locator("td").nth(2)).toHaveText("6");
    await expect(price.locator("td").nth(3)).toHaveText("8");
    // The rehearsal imagined a cart where the real shop refused (a seeded broken rehearsal may add an "invalid rehearsal" row too).
    await expect(divergences.getByTestId("world-model-divergence").filter({ hasText: "error OUT_OF_STOCK" }).filter({ hasText: '{"cart":{"pen":5}' })).toContainText("add_to_cart");

    // Only one tool's divergences, then back.
    await tools.getByTestId("world-model-tool").filter({ hasText: "checkout" }).getByRole("button", { name: "divergences" }).click();
    await expect(view.getByRole("heading", { name: /Most frequent divergences of checkout/ })).toBeVisible();
    // Every row is checkout's ($.total, and "invalid rehearsal" when a seeded broken rehearsal hit checkout).
    await expect(divergences.getByTestId("world-model-divergence").filter({ hasText: "$.total" })).toHaveCount(1);
    await expect(divergences.getByTestId("world-model-divergence").filter({ hasNotText: "checkout" })).toHaveCount(0);

    // A divergence's turn link opens the trajectory at that tool turn, whose diff shows the difference.
    const link = divergences.getByTestId("world-model-divergence").first().getByRole("link").first();
    const href = await link.getAttribute("href");
    expect(href).toMatch(/^\/trajectories\/[0-9a-f-]{36}#turn-\d+$/);
    await link.click();
    const turn = page.locator(`#turn-${href!.split("#turn-")[1]}`);
    await expect(turn.getByTestId("response-diff")).toBeVisible();
    await expect(turn.getByTestId("fidelity")).toContainText(/fidelity 0\.\d\d/);
  });

  test("shop run: evaluation steps on their own", async ({ page }) => {
    await page.goto(`/runs/${shopRunId}`);
    const view = page.getByTestId("world-model");
    await view.getByLabel("Steps to include").selectOption("eval");
    await expect(view.getByTestId("world-model-step-chart")).toHaveAttribute("aria-label", "Fidelity per step, steps 4 to 4");
  });

  test("tau2 run: text results agree with wrapped rehearsals, Error: responses diverge from rehearsed values", async ({ page }) => {
    await page.goto(`/runs/${tau2RunId}`);
    const view = page.getByTestId("world-model");
    const tools = view.getByTestId("world-model-tools");
    await expect(tools.getByRole("rowheader", { name: "find_user_id_by_name_zip" })).toBeVisible();
    const returns = tools.getByTestId("world-model-tool").filter({ hasText: "return_delivered_order_items" });
    // Both sides errors: every valid comparison agrees.
    await expect(returns.locator("td").nth(4)).not.toHaveText("0%");
    const divergences = view.getByTestId("world-model-divergences");
    await expect(divergences.getByTestId("world-model-divergence").filter({ hasText: "error Error: Order not found" }).filter({ hasText: '"status":"pending"' })).toContainText("get_order_details");
  });

  test("a run without compared responses says how to get them", async ({ page }) => {
    const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    const none = await seedRun(prisma, { userId: user.id, name: "e2e no shadow", trajectories: 8, steps: 1, turnsPerTrajectory: 3, shadowExecution: false, metricSeries: 0 });
    await page.goto(`/runs/${none.runId}`);
    await expect(page.getByTestId("world-model-empty")).toContainText("shadow execution");
  });
});
