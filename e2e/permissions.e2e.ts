/**
 * Who may do what, in the UI: a member sees another member's run actions disabled with the rule written
 * beside them, and their own enabled; nodes are changed by admins only (members use them), and the Nodes
 * page says so. Accounts sign up through the API; runs and nodes are seeded through Prisma (no worker).
 */
import { expect, test, type BrowserContext } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { seedRun } from "../test/seed";

const suffix = crypto.randomBytes(3).toString("hex");
const password = "permissions-e2e-password";
let prisma: PrismaClient;
let alice: BrowserContext;
let bob: BrowserContext;
let aliceRunId: string;
let bobRunId: string;

/** Sign up in a fresh context (the cookie stays there); waits out the per-address sign-up limit if hit. */
async function memberContext(browser: import("@playwright/test").Browser, baseURL: string, name: string): Promise<{ ctx: BrowserContext; id: string }> {
  const ctx = await browser.newContext({ baseURL });
  const email = `${name.toLowerCase()}-${suffix}@example.test`;
  for (let attempt = 0; ; attempt++) {
    const res = await ctx.request.post("/api/auth/sign-up/email", { data: { email, password, name }, headers: { origin: baseURL } });
    if (res.ok()) break;
    if (res.status() !== 429 || attempt > 5) throw new Error(`sign-up failed: ${res.status()} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers()["x-retry-after"] ?? 5)));
  }
  const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
  await prisma.user.update({ where: { id: user.id }, data: { role: "member" } });
  return { ctx, id: user.id };
}

test.describe.serial("owner-or-admin rules, shown in the UI", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    const a = await memberContext(browser, baseURL!, "Alice");
    const b = await memberContext(browser, baseURL!, "Bob");
    alice = a.ctx;
    bob = b.ctx;
    const common = { trajectories: 8, steps: 1, turnsPerTrajectory: 2, instances: 2, metricSeries: 1, status: "failed" as const };
    aliceRunId = (await seedRun(prisma, { ...common, userId: a.id, name: `alice-run-${suffix}` })).runId;
    bobRunId = (await seedRun(prisma, { ...common, userId: b.id, name: `bob-run-${suffix}` })).runId;
    await prisma.node.create({ data: { name: `alice-node-${suffix}`, kind: "openai", baseUrl: "http://127.0.0.1:9", createdById: a.id } });
    await prisma.node.create({ data: { name: `bob-node-${suffix}`, kind: "openai", baseUrl: "http://127.0.0.1:9", createdById: b.id } });
  });

  test.afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await prisma?.$disconnect();
  });

  test("a member cannot resume another member's run, and the page says why", async () => {
    const page = await bob.newPage();
    await page.goto(`/runs/${aliceRunId}`);
    const resume = page.getByRole("button", { name: "Resume run" });
    await expect(resume).toBeVisible();
    await expect(resume).toBeDisabled();
    await expect(page.getByTestId("run-permission-note")).toHaveText(
      "Launched by Alice: only the member who launched a run, or an admin, can cancel or resume it.",
    );

    await page.goto(`/runs/${bobRunId}`);
    await expect(page.getByRole("button", { name: "Resume run" })).toBeEnabled();
    await expect(page.getByTestId("run-permission-note")).toHaveCount(0);
  });

  test("a member uses nodes but cannot add, change or remove them, and the Nodes page says who may do what", async () => {
    const page = await bob.newPage();
    await page.goto("/nodes");
    const aliceRow = page.locator("tr", { hasText: `alice-node-${suffix}` });
    const bobRow = page.locator("tr", { hasText: `bob-node-${suffix}` });
    await expect(aliceRow).toContainText("Alice");
    for (const row of [aliceRow, bobRow]) {
      await expect(row.getByRole("button", { name: "Remove" })).toBeDisabled();
      await expect(row.getByRole("button", { name: "Remove" })).toHaveAttribute("title", "only admins remove nodes");
      await expect(row.getByRole("button", { name: "Edit" })).toBeDisabled();
    }
    // Even a node Bob added before nodes became admin-only: probing a URL a member typed is for admins.
    await expect(bobRow.getByRole("button", { name: "Run doctor" })).toBeDisabled();
    await expect(page.getByRole("form", { name: "Add a node" })).toHaveCount(0);
    await expect(page.getByTestId("node-add-rule")).toHaveText("Only admins add nodes (the server and the worker make requests to a node's URL); members use them in their runs.");
    const rules = page.getByTestId("node-permissions");
    await expect(rules).toContainText("Admins add, change and remove nodes");
    await expect(rules).toContainText("Members use the nodes in their runs and run the doctor on nodes an admin added.");
    await expect(rules).toContainText("You are a member.");
    // The API says the same (tRPC, as the page calls it).
    const res = await bob.request.post("/api/trpc/nodes.add", { data: { json: { name: `bob-new-${suffix}`, kind: "openai", baseUrl: "http://127.0.0.1:9" } } });
    expect(res.status()).toBe(403);
  });
});
