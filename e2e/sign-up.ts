/**
 * Sign-up for e2e specs. Every spec signs up from 127.0.0.1, and the app allows 3 sign-ups per address per
 * 10 s (server/auth.ts): which spec meets the limit depends on how fast the specs before it ran. A 429 is
 * therefore waited out for the time the server names (x-retry-after), so the outcome never depends on timing.
 */
import type { APIRequestContext } from "@playwright/test";

export async function signUp(request: APIRequestContext, baseURL: string, data: { email: string; password: string; name: string }): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await request.post("/api/auth/sign-up/email", { data, headers: { origin: baseURL } });
    if (res.ok()) return;
    if (res.status() !== 429 || attempt >= 5) throw new Error(`sign-up of ${data.email} failed: ${res.status()} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers()["x-retry-after"] ?? 10)));
  }
}
