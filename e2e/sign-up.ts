/**
 * Sign-up for e2e specs. Every spec signs up from 127.0.0.1, and the app allows 3 sign-ups per address per
 * 10 s (server/auth.ts): which spec meets the limit depends on how fast the specs before it ran. A 429 is
 * therefore waited out for the time the server names (x-retry-after), so the outcome never depends on timing.
 */
import { expect, type APIRequestContext, type Page } from "@playwright/test";

export async function signUp(request: APIRequestContext, baseURL: string, data: { email: string; password: string; name: string }): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await request.post("/api/auth/sign-up/email", { data, headers: { origin: baseURL } });
    if (res.ok()) return;
    if (res.status() !== 429 || attempt >= 5) throw new Error(`sign-up of ${data.email} failed: ${res.status()} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers()["x-retry-after"] ?? 10)));
  }
}

/**
 * Sign-up through the form, as a user does. When the form says the address made too many attempts, wait
 * the seconds it names and submit again — the same rule as `signUp`, so the outcome never depends on how
 * fast the specs before this one ran.
 */
export async function signUpInBrowser(page: Page, account: { name: string; email: string; password: string }): Promise<void> {
  await page.goto("/sign-in");
  await page.getByRole("link", { name: "Create one" }).click();
  await page.getByLabel("Name").fill(account.name);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  for (let attempt = 0; ; attempt++) {
    await page.getByRole("button", { name: "Create account" }).click();
    const signedIn = page.getByTestId("current-user");
    const limited = page.getByRole("alert").filter({ hasText: /^Too many attempts from this address\. Try again in (\d+) s\.$/ });
    await expect(signedIn.or(limited).first()).toBeVisible({ timeout: 20_000 });
    if (await signedIn.isVisible()) break;
    if (attempt >= 5) throw new Error(`sign-up of ${account.email} still rate-limited after ${attempt + 1} attempts`);
    const seconds = Number(/in (\d+) s/.exec((await limited.textContent()) ?? "")?.[1] ?? 10);
    await page.waitForTimeout(seconds * 1000);
  }
  await expect(page.getByTestId("current-user")).toHaveText(account.email);
}
