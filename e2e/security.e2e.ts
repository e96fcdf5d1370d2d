/**
 * The browser's side of security round 3, against the production web process (scripts/web.ts):
 * - every page carries a strict Content-Security-Policy with a fresh nonce, X-Frame-Options DENY and
 *   frame-ancestors 'none', nosniff and a Referrer-Policy (no-referrer on share links); the API and static
 *   files their fixed headers; no HSTS over plain HTTP, even when the client claims a forwarding proxy;
 * - the app still works under that policy with no violation on the main pages: the runs list, the
 *   new-run form, a run page with its charts, a report with KaTeX and an embedded chart, the trajectory
 *   list and a trajectory, the share page;
 * - no page can be framed by another site;
 * - report notes' images from other hosts show only once an admin allows them;
 * - 100 MB bodies on pages, static files and the API are answered 413 at once, and the web process's
 *   memory stays flat (its resident size read from /proc).
 * Data is seeded through Prisma (.run/e2e-db-url).
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { seedRun } from "../test/seed";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const password = "security-e2e-password";
const runName = `csp-run-${suffix}`;
const title = `CSP report ${suffix}`;
const imageHost = "images.example.org";
const notes = [
  "The objective is $$\\mathcal{J}(\\theta)=\\frac{1}{G}\\sum_{i=1}^{G} r_i$$ and $k=4$.",
  "",
  `![a remote figure](https://${imageHost}/figure.png)`,
  "",
  "```envace-chart",
  "metric: reward/act/mean",
  "caption: Act reward",
  "```",
].join("\n");

let prisma: PrismaClient;
let member: BrowserContext;
let admin: BrowserContext;
let runId: string;
let trajectoryId: string;
let reportUrl: string;
let shareUrl: string;

/** CSP violations and console errors of a page, collected from before its first script. */
async function watch(page: Page): Promise<() => Promise<string[]>> {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
  return async () => [...problems, ...(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations ?? []))];
}

function expectPageHeaders(h: Record<string, string>, what: string, share = false) {
  const csp = h["content-security-policy"] ?? "";
  expect(csp, what).toMatch(/(^|; )script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'(;|$)/);
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toContain("object-src 'none'");
  expect(csp, what).toContain("img-src 'self' data: blob:");
  expect(csp, what).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  expect(h["x-frame-options"], what).toBe("DENY");
  expect(h["x-content-type-options"], what).toBe("nosniff");
  expect(h["referrer-policy"], what).toBe(share ? "no-referrer" : "same-origin");
  expect(h["strict-transport-security"], what).toBeUndefined();
}

test.describe.serial("browser headers and the app under its Content-Security-Policy", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    member = await browser.newContext({ baseURL });
    admin = await browser.newContext({ baseURL });
    const memberEmail = `csp-member-${suffix}@example.test`;
    const adminEmail = `csp-admin-${suffix}@example.test`;
    await signUp(member.request, baseURL!, { email: memberEmail, password, name: "Csp Member" });
    await signUp(admin.request, baseURL!, { email: adminEmail, password, name: "Csp Admin" });
    const user = await prisma.user.update({ where: { email: memberEmail }, data: { role: "member" }, select: { id: true } });
    await prisma.user.update({ where: { email: adminEmail }, data: { role: "admin" } });
    ({ runId } = await seedRun(prisma, { userId: user.id, name: runName, trajectories: 16, steps: 4, turnsPerTrajectory: 3, instances: 4, metricSeries: 3, metricPoints: 20 }));
    trajectoryId = (await prisma.trajectory.findFirstOrThrow({ where: { runId }, select: { id: true } })).id;
    await prisma.appSetting.deleteMany({ where: { key: "reportImagesFromOtherHosts" } });

    const page = await member.newPage();
    await page.goto(`/reports/new?runs=${runId}`);
    await expect(page.getByRole("button", { name: `Remove ${runName}` })).toBeVisible();
    await page.getByLabel("Title").fill(title);
    await page.getByLabel(/^Notes/).fill(notes);
    await page.getByRole("button", { name: "Create report" }).click();
    await expect(page).toHaveURL(/\/reports\/[0-9a-f-]{36}$/);
    reportUrl = new URL(page.url()).pathname;
    await page.getByRole("button", { name: "Create share link" }).click();
    shareUrl = new URL(await page.getByTestId("share-url").inputValue()).pathname;
    await page.close();
  });

  test.afterAll(async () => {
    await prisma?.appSetting.deleteMany({ where: { key: "reportImagesFromOtherHosts" } });
    await member?.close();
    await admin?.close();
    await prisma?.$disconnect();
  });

  test("every page sends the headers, with a fresh nonce each time; the API and static files theirs", async () => {
    const pages = ["/", "/sign-in", "/sign-up", "/runs", "/runs/new", `/runs/${runId}`, "/runs/test-time", `/runs/${runId}/trajectories`, `/trajectories/${trajectoryId}`, "/compare", "/reports", reportUrl, "/reports/new", "/studies", "/studies/new", "/datasets", "/nodes", "/mcp-servers", "/settings", "/api-docs", "/no-such-page"];
    const nonces = new Set<string>();
    for (const p of pages) {
      // A client that claims to come through an HTTPS proxy is not one: no HSTS over plain HTTP.
      const res = await member.request.get(p, { headers: { "x-forwarded-proto": "https" } });
      expect(res.status(), p).toBe(p === "/no-such-page" ? 404 : 200);
      expectPageHeaders(res.headers(), p);
      nonces.add(/'nonce-([^']+)'/.exec(res.headers()["content-security-policy"]!)![1]!);
    }
    expect(nonces.size).toBe(pages.length);
    const shared = await member.request.get(shareUrl);
    expectPageHeaders(shared.headers(), "share page", true);
    expect(shared.headers()["x-robots-tag"]).toBe("noindex, nofollow");
    // The nonce the policy names is the one on the page's scripts.
    const html = await (await member.request.get("/runs")).text();
    const runsNonce = /nonce="([^"]+)"/.exec(html)?.[1];
    expect(runsNonce).toBeTruthy();
    expect(html).not.toMatch(/<script(?![^>]*nonce=)[^>]*>/);

    const staticPath = /(\/_next\/static\/[^"]+\.js)/.exec(html)![1]!;
    for (const p of ["/api/openapi.json", "/api/v1/me", staticPath]) {
      const h = (await member.request.get(p)).headers();
      expect(h["x-frame-options"], p).toBe("DENY");
      expect(h["x-content-type-options"], p).toBe("nosniff");
      expect(h["content-security-policy"], p).toContain("default-src 'none'");
    }
  });

  test("the main pages work under the policy, with no violation", async () => {
    // The watch sees a violation when there is one: a script the server did not write (added to the page
    // on its way to the browser, under the page's own policy) is refused and reported.
    const probe = await member.newPage();
    const seen = await watch(probe);
    await probe.route("**/runs", async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, body: (await res.text()).replace("</body>", "<script>window.__injected = true</script></body>") });
    });
    await probe.goto("/runs");
    await expect.poll(async () => (await seen()).some((v) => v.includes("script-src"))).toBe(true);
    expect(await probe.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
    await probe.close();

    const check = async (url: string, ready: (page: Page) => Promise<void>, ctx: BrowserContext = member) => {
      const page = await ctx.newPage();
      const problems = await watch(page);
      await page.goto(url);
      await ready(page);
      await page.waitForTimeout(300);
      expect(await problems(), url).toEqual([]);
      await page.close();
    };
    await check("/runs", async (p) => await expect(p.getByRole("link", { name: runName })).toBeVisible());
    await check("/runs/new", async (p) => await expect(p.getByRole("button", { name: "Launch run" })).toBeVisible());
    await check(`/runs/${runId}`, async (p) => await expect(p.locator("svg path").first()).toBeVisible());
    await check(reportUrl, async (p) => {
      await expect(p.getByTestId("report-notes").locator(".katex").first()).toBeVisible();
      await expect(p.getByTestId("embedded-chart").locator(`path[data-series="${runName}"]`)).toHaveCount(1);
      // Off by default: the remote image is described, not requested.
      await expect(p.getByTestId("blocked-image")).toContainText(`[image: a remote figure — from ${imageHost}, not shown]`);
    });
    await check(`/runs/${runId}/trajectories`, async (p) => await expect(p.getByTestId("trajectory-row").first()).toBeVisible());
    await check(`/trajectories/${trajectoryId}`, async (p) => await expect(p.getByTestId("trajectory-view")).toBeVisible());
    await check("/studies/new", async (p) => await expect(p.getByRole("heading", { name: "New study" })).toBeVisible());
    await check("/settings", async (p) => await expect(p.getByRole("heading", { name: "API tokens" })).toBeVisible());
    await check("/api-docs", async (p) => await expect(p.getByRole("heading", { name: "EnvACE Studio API" })).toBeVisible());
    const anon = await member.browser()!.newContext({ baseURL: test.info().project.use.baseURL });
    await check(shareUrl, async (p) => await expect(p.getByTestId("report-notes").locator(".katex").first()).toBeVisible(), anon);
    await anon.close();
  });

  test("no page can be framed by another site", async ({ baseURL }) => {
    const page = await member.newPage();
    await page.setContent(`<iframe id="f" src="${baseURL}/settings" width="400" height="300"></iframe>`);
    await page.waitForTimeout(2_000);
    // The browser refuses to show the page in the frame: the frame never holds a document of the app.
    expect(page.frames().map((f) => f.url())).not.toContainEqual(expect.stringContaining(new URL(baseURL!).host));
    await page.close();
  });

  test("report notes show images from other hosts once an admin allows them, and the policy follows", async () => {
    const settings = await admin.newPage();
    await settings.goto("/settings");
    const box = settings.getByLabel("Report notes may show images from other hosts");
    await expect(box).not.toBeChecked();
    await box.click();
    await expect(settings.getByRole("status")).toHaveText("Saved.");
    await expect(box).toBeChecked();
    await settings.close();

    const res = await member.request.get(reportUrl);
    expect(res.headers()["content-security-policy"]).toContain("img-src 'self' data: blob: https: http:");
    const page = await member.newPage();
    const requested: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes(imageHost)) requested.push(r.url());
    });
    await page.goto(reportUrl);
    await expect(page.getByTestId("report-notes").getByRole("img", { name: "a remote figure" })).toHaveAttribute("src", `https://${imageHost}/figure.png`);
    await expect.poll(() => requested.length).toBeGreaterThan(0);
    await page.close();
    await prisma.appSetting.deleteMany({ where: { key: "reportImagesFromOtherHosts" } });
  });

  test("100 MB bodies on pages, static files and the API get 413 at once; the web process holds no more memory", async ({ baseURL }) => {
    const devPid = Number(fs.readFileSync(path.resolve(".run/e2e-dev-pid"), "utf8"));
    const web = webPid(devPid);
    expect(web, "the web process under npm start").toBeTruthy();
    const before = rss(web!);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(web!))), 10);
    try {
      for (const p of ["/runs", "/", shareUrl, "/_next/static/x.js", "/api/v1/runs", "/api/trpc/runs.create", "/api/auth/sign-in/email", "/api/events"]) {
        for (const chunked of [false, true]) {
          const r = await sendHuge(baseURL!, p, chunked);
          expect(r.status, `${p} ${chunked ? "chunked" : "declared"}`).toBe(413);
          expect(r.ms, `${p} ${chunked ? "chunked" : "declared"}`).toBeLessThan(250);
        }
      }
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(60 * 1024 * 1024);
  });
});

function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

/** The web process (scripts/web.ts) below npm start's process. */
function webPid(ancestor: number): number | undefined {
  const parentOf = (pid: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return null;
    }
  };
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let cmd = "";
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    } catch {
      continue;
    }
    if (!cmd.includes("scripts/web.ts") || cmd.includes("tsx/dist/cli")) continue;
    for (let p = parentOf(pid), hops = 0; p && p > 1 && hops < 10; p = parentOf(p), hops++) if (p === ancestor) return pid;
  }
  return undefined;
}

/** POST 100 MB (declared, or chunked) as fast as the server takes it; the time to its answer. */
function sendHuge(base: string, pathname: string, chunked: boolean): Promise<{ status: number; ms: number }> {
  const total = 100 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const url = new URL(pathname, base);
    const headers: Record<string, string> = { "content-type": "application/json", ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(total) }) };
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers, agent: false });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const started = performance.now();
    req.on("response", (res) => {
      answered = true;
      const ms = performance.now() - started;
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, ms }));
    });
    req.on("error", (e) => {
      if (!answered) reject(new Error(`${pathname}: ${e.message}`));
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    req.flushHeaders();
    pump();
  });
}
