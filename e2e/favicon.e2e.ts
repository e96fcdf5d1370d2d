/** The app's icon: every page links it (Next's app/icon.svg convention) and the link is served. */
import { expect, test } from "@playwright/test";

test("pages link the favicon and it is served as SVG", async ({ page, request }) => {
  for (const path of ["/sign-in", "/api-docs"]) {
    await page.goto(path);
    const icon = page.locator('head link[rel="icon"]');
    await expect(icon).toHaveCount(1);
    const href = await icon.getAttribute("href");
    expect(href).toMatch(/^\/icon\.svg(\?|$)/);
    const res = await request.get(href!);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("image/svg+xml");
    expect(await res.text()).toContain("<svg");
  }
});
