/**
 * The run page's Turn storage card, in Chromium: a finished run's owner archives its turns (they leave the
 * database for gzip JSON Lines in the archive store), restores them, and sets the run's retention.
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

const password = "run-storage-owner-pw";
const email = `storage-${crypto.randomBytes(4).toString("hex")}@example.test`;

let prisma: PrismaClient;
let runId: string;
let turns: number;
let session: Awaited<ReturnType<BrowserContext["cookies"]>>;

test.describe.serial("run turn storage", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    const url = fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim();
    prisma = createPrisma(url);
    const ctx = await browser.newContext({ baseURL });
    await signUp(ctx.request, baseURL!, { email, password, name: "Storage Owner" });
    session = await ctx.cookies();
    await ctx.close();
    const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    const seeded = await seedRun(prisma, { userId: user.id, name: "e2e storage", domain: "shop", trajectories: 16, steps: 2, turnsPerTrajectory: 9, metricSeries: 1 });
    runId = seeded.runId;
    turns = seeded.turns;
    await prisma.run.update({ where: { id: runId }, data: { status: "succeeded", finishedAt: new Date() } });
  });

  test.afterAll(async () => {
    await prisma?.$disconnect();
  });

  test.beforeEach(async ({ context }) => {
    await context.addCookies(session);
  });

  test("archive, restore and retention of a finished run's turns", async ({ page }) => {
    await page.goto(`/runs/${runId}`);
    const card = page.getByTestId("run-storage");
    await expect(card.getByTestId("run-storage-state")).toHaveText("Turns are in the database.");
    await card.getByRole("button", { name: "Archive turns" }).click();
    await expect(card.getByTestId("run-storage-message")).toHaveText(new RegExp(`^Archived ${turns} turns \\([0-9.]+ MB\\)\\.$`));
    await expect(card.getByTestId("run-storage-state")).toContainText(`Turns archived`);
    await expect(card.getByTestId("run-storage-state")).toContainText(runId);
    expect(await prisma.turn.count({ where: { runId } })).toBe(0);

    await card.getByRole("button", { name: "Restore turns" }).click();
    await expect(card.getByTestId("run-storage-message")).toHaveText(`Restored ${turns} turns.`);
    await expect(card.getByTestId("run-storage-state")).toHaveText("Turns are in the database.");
    expect(await prisma.turn.count({ where: { runId } })).toBe(turns);

    await card.getByLabel("retention in days").fill("2.5");
    await card.getByRole("button", { name: "Save retention" }).click();
    await expect(card.getByRole("alert")).toContainText("whole number of days");
    await card.getByLabel("retention in days").fill("14");
    await card.getByRole("button", { name: "Save retention" }).click();
    await expect(card.getByTestId("run-storage-message")).toHaveText("Turns are archived 14 days after the run finished.");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).retainTurnsDays).toBe(14);
  });
});
