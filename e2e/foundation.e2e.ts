import crypto from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { signUpInBrowser } from "./sign-up";

const admin = { email: "admin@example.test", password: "correct-horse-battery" };

async function signIn(page: Page) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Runs" })).toBeVisible();
}

test.describe.serial("foundation flows", () => {
  test("the first account becomes admin; sign out and back in", async ({ page }) => {
    await page.goto("/runs");
    await expect(page).toHaveURL(/\/sign-in/);
    await page.getByRole("link", { name: "Create one" }).click();
    await page.getByLabel("Name").fill("Ada Admin");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("heading", { name: "Runs" })).toBeVisible();
    await expect(page.getByTestId("current-user")).toHaveText(admin.email);
    await expect(page.locator(".nav .badge")).toHaveText("admin");

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill("wrong-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert")).toBeVisible();
    await signIn(page);
  });

  test("the new-run form shows errors on the offending field, launches a quickstart run that progresses live, and cancels it", async ({ page }) => {
    await signIn(page);
    await page.getByRole("link", { name: "New run" }).click();
    await expect(page.getByTestId("run-summary")).toContainText("rollouts per step");
    await expect(page.getByTestId("run-summary")).toContainText("with shadow execution (rehearsals grounded, weight 1)");
    const field = page.locator('[data-field="data.instancesPerStep"]');
    await field.locator("input").fill("0");
    await page.getByRole("button", { name: "Launch run" }).click();
    await expect(field.getByRole("alert")).toContainText(/greater than or equal to 1/);
    await expect(page).toHaveURL(/\/runs\/new/);

    await field.locator("input").fill("2");
    // The launch check refuses what cannot run, under the field that says it: a node nobody registered.
    const policyNode = page.locator('[data-field="policy.node"]');
    await policyNode.locator("input").fill("no-such-node");
    await page.getByRole("button", { name: "Launch run" }).click();
    await expect(policyNode.getByRole("alert")).toHaveText('node "no-such-node" (policy) is not registered; add it on the Nodes page');
    await expect(page).toHaveURL(/\/runs\/new/);
    await policyNode.locator("input").fill("embedded");
    await page.getByLabel("Run name").fill("e2e live run");
    await page.getByRole("button", { name: "Launch run" }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { name: "e2e live run" })).toBeVisible();
    // No reload from here on: status, progress and logs must change through the live change signal.
    await expect(page.getByTestId("run-status")).toHaveText("running", { timeout: 60_000 });
    await expect(page.getByTestId("run-logs")).toContainText("started on worker");
    await expect(page.getByRole("progressbar")).toHaveAttribute("aria-valuenow", /^[1-9]\d*$/, { timeout: 120_000 });
    await expect(page.getByTestId("run-logs")).toContainText(/step 1\/40: reward/);
    await expect(page.getByTestId("run-eta")).toHaveText(/\d+(s|m)/);
    await expect(page.getByTestId("run-progress")).toContainText(/^step \d+ of 40 · ETA/);

    await page.getByRole("button", { name: "Cancel run" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("cancelled", { timeout: 30_000 });
    await expect(page.getByRole("button", { name: "Resume run" })).toBeVisible();

    await page.getByRole("link", { name: "Runs" }).click();
    const row = page.locator("tr", { hasText: "e2e live run" });
    await expect(row).toBeVisible();
    await expect(row.getByTestId("run-status")).toHaveText("cancelled");
  });

  test("a sign-up over the per-address limit says how long to wait, and goes through after it", async ({ page, request, baseURL }) => {
    // Use up the limit (3 sign-ups per 10 s per address) from this address, outside the page's cookies.
    let limited = false;
    for (let i = 0; i < 6 && !limited; i++) {
      const email = `burst-${crypto.randomBytes(4).toString("hex")}@example.test`;
      const res = await request.post("/api/auth/sign-up/email", { data: { email, password: "burst-password-1", name: "Burst" }, headers: { origin: baseURL! } });
      limited = res.status() === 429;
    }
    expect(limited).toBe(true);
    const account = { name: "Late Comer", email: `late-${crypto.randomBytes(4).toString("hex")}@example.test`, password: "late-comer-password" };
    await page.goto("/sign-in");
    await page.getByRole("link", { name: "Create one" }).click();
    await page.getByLabel("Name").fill(account.name);
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Too many attempts" })).toHaveText(/^Too many attempts from this address\. Try again in \d+ s\.$/);
    // The helper every browser sign-up of the suite uses waits that out and signs up.
    await signUpInBrowser(page, account);
  });
});
