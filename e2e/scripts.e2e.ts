/**
 * Scripts and the form that explains itself, against the real product (production build, worker,
 * embedded node): the new-run form's labels, help, defaults, collapsed advanced settings and its time
 * estimate from a node's committed steps; the OpenAPI document and its reference page; and the `envace`
 * CLI as a child process launching a real run, following it live and cancelling it.
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { expect, test, type BrowserContext } from "@playwright/test";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { sha256 } from "../lib/secrets";
import { signUp } from "./sign-up";

const suffix = crypto.randomBytes(3).toString("hex");
const email = `scripts-${suffix}@example.test`;
const password = "scripts-e2e-password";
const paceNode = `pace-${suffix}`;

let prisma: PrismaClient;
let ctx: BrowserContext;
let token: string;
let configDir: string;

test.describe.serial("scripts and the self-explaining form", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    ctx = await browser.newContext({ baseURL });
    await signUp(ctx.request, baseURL!, { email, password, name: "Script Author" });
    const user = await prisma.user.update({ where: { email }, data: { role: "member" }, select: { id: true } });
    token = `envace_e2e_${crypto.randomBytes(24).toString("base64url")}`;
    await prisma.apiToken.create({ data: { userId: user.id, name: "e2e cli", prefix: token.slice(0, 14), tokenHash: sha256(token) } });
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-e2e-cli-"));

    // Two committed training steps on a node of their own: 4 rollouts in 8 s, then 4 in 8 s → 2 s per rollout.
    const run = await prisma.run.create({
      data: {
        name: `pace ${suffix}`, kind: "train", status: "succeeded", config: { kind: "train", policy: { node: paceNode, model: "tiny-gpt" } },
        configVersion: 1, paradigm: "rehearse", policyNode: paceNode, totalSteps: 2, createdById: user.id,
      },
      select: { id: true },
    });
    for (const index of [1, 2]) {
      const finishedAt = new Date(Date.now() - (3 - index) * 60_000);
      await prisma.step.create({ data: { runId: run.id, index, kind: "train", startedAt: new Date(finishedAt.getTime() - 8000), finishedAt, durationMs: 8000, metrics: { "generation/attempted": 20 } } });
      await prisma.trajectory.createMany({
        data: [0, 1, 2, 3].map((rolloutIndex) => ({
          runId: run.id, step: index, phase: "train", instanceId: "t", groupId: `g${index}`, rolloutIndex, paradigm: "rehearse",
          reward: 0, outcome: "failure", terminationReason: "max_assistant_turns",
        })),
      });
    }
  });

  test.afterAll(async () => {
    await ctx?.close();
    await prisma?.$disconnect();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  test("the new-run form shows every setting's label, unit, help and default, advanced parts collapsed", async () => {
    const page = await ctx.newPage();
    await page.goto("/runs/new");
    const tasks = page.locator('[data-field="data.instancesPerStep"]');
    await expect(tasks.locator("label")).toHaveText("Tasks per step (tasks)");
    await expect(tasks.locator(".help")).toHaveText("Tasks per training step (and per evaluation)");
    await expect(tasks.getByTestId("setting-default")).toHaveText("Default: 16 tasks");
    await expect(page.getByLabel("Learning rate")).toBeVisible();
    await expect(page.locator('[data-field="optim.lr"] .help')).toContainText("Learning rate of the AdamW update");

    // Every setting has a label, a help line and its default; none is a raw field name.
    const fields = page.locator(".run-form [data-field]:not([data-field='name'])");
    const n = await fields.count();
    expect(n).toBeGreaterThan(60);
    for (let i = 0; i < n; i++) {
      const f = fields.nth(i);
      await expect(f.locator(".help")).not.toBeEmpty();
      await expect(f.getByTestId("setting-default")).toHaveText(/^(Default: .+|No default)$/);
      expect(await f.locator("label").textContent()).not.toMatch(/^[a-z]+[A-Z]/);
    }

    // Advanced settings and the sampling section start collapsed.
    await expect(page.locator('[data-field="reward.judgeTimeoutS"]')).toBeHidden();
    await expect(page.locator('[data-field="sampling.act.temperature"]')).toBeHidden();
    const reward = page.locator('[data-section="reward"]');
    await reward.getByText(/^Advanced \(\d+\)$/).click();
    const timeout = page.locator('[data-field="reward.judgeTimeoutS"]');
    await expect(timeout.locator("label")).toHaveText("Judge timeout (s)");
    await expect(timeout.getByTestId("setting-default")).toHaveText("Default: 120 s");
    await page.locator('[data-section="sampling"] > summary').click();
    await expect(page.locator('[data-field="sampling.act.temperature"] label')).toHaveText("Act (training) · Temperature");

    // An error in a collapsed part opens it.
    await timeout.locator("input").fill("0");
    await reward.getByText(/^Advanced \(\d+\)$/).click();
    await expect(timeout).toBeHidden();
    await page.getByRole("button", { name: "Launch run" }).click();
    await expect(timeout.getByRole("alert")).toContainText(/greater than or equal to 1/);
    await timeout.locator("input").fill("");
    await page.close();
  });

  test("the summary explains rollouts and generations per step and estimates the time from the node's pace", async () => {
    const page = await ctx.newPage();
    await page.goto("/runs/new");
    const summary = page.getByTestId("run-summary");
    await expect(summary).toContainText("40 steps × 8 tasks × 4 rollouts = 32 rollouts per step, 1,280 in all");
    await page.getByLabel("Policy node").fill(paceNode);
    await expect(page.getByTestId("run-estimate")).toHaveText(
      "Estimated time: ≈ 42m 40s for the 40 training steps at the node's recent pace (2.00 s per rollout over its last 2 steps); evaluations add to it.",
    );
    await expect(summary).toContainText("≈ 160 generations per step (5.0 per rollout on this node)");
    await page.getByLabel("Policy node").fill(`never-used-${suffix}`);
    await expect(page.getByTestId("run-estimate")).toHaveText(`No time estimate: node "never-used-${suffix}" has no committed steps yet.`);
    await expect(summary).toContainText("up to 256 generations per step");
    await page.close();
  });

  test("the OpenAPI document validates and the reference page lists every endpoint and setting", async ({ request, baseURL }) => {
    const res = await request.get("/api/openapi.json");
    expect(res.status()).toBe(200);
    const doc = await res.json();
    await SwaggerParser.validate(structuredClone(doc));
    expect(doc.servers[0].url).toBe(`${baseURL}/api/v1`);
    const page = await ctx.newPage();
    await page.goto("/api-docs");
    await expect(page.getByRole("heading", { name: "EnvACE Studio API" })).toBeVisible();
    const ops = page.getByTestId("api-operation");
    await expect(ops).toHaveCount(Object.values(doc.paths).flatMap((p) => Object.keys(p as object)).length);
    await expect(page.locator("#runs-create h3")).toHaveText("POST /api/v1/runs");
    await expect(page.locator("#reports-export")).toContainText("Export a report as Markdown, CSV, LaTeX or JSON");
    await expect(page.locator("#run-settings")).toContainText("Learning rate");
    await expect(page.locator("#run-settings tr", { hasText: "data.instancesPerStep" })).toContainText("16");
    // The REST API answers to the token.
    const me = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
    expect(await me.json()).toMatchObject({ email, role: "member", via: "token" });
    expect((await request.get("/api/v1/runs")).status()).toBe(401);
    await page.close();
  });

  test("the CLI launches a real run, follows its live progress and cancels it", async ({ baseURL }) => {
    test.setTimeout(300_000);
    const env = { ...process.env, ENVACE_CONFIG_DIR: configDir, ENVACE_URL: "", ENVACE_TOKEN: "" };
    const cli = (args: string[], stdin = "") =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ["bin/envace.mjs", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.stdin.end(stdin);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });

    const login = await cli(["login", "--url", baseURL!], `${token}\n`);
    expect(login.stderr).toBe("");
    expect(login.stdout).toContain(`as ${email} (member)`);

    const created = await cli(["--json", "runs", "create", "--preset", "quickstart", "--set", "schedule.steps=3", "--set", "data.instancesPerStep=2", "--set", "data.poolSize=2", "--name", `cli ${suffix}`]);
    expect(created.stderr).toBe("");
    const id = JSON.parse(created.stdout).id as string;

    let out = "";
    const watcher = spawn(process.execPath, ["bin/envace.mjs", "runs", "watch", id], { env, stdio: ["ignore", "pipe", "pipe"] });
    watcher.stdout.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => watcher.on("close", resolve));
    try {
      // The worker commits step 1; the event stream brings it to the CLI with the step's metrics.
      await expect.poll(() => out, { timeout: 240_000, intervals: [1000] }).toMatch(/\] {2}1\/3 steps {3}33% {2}ETA .+ {2}running {2}reward\/mean /);
      const cancel = await cli(["runs", "cancel", id]);
      expect(cancel.code).toBe(0);
      expect(await exited).toBe(3);
    } finally {
      // A failed expectation must not leave the watcher reconnecting to a product that is gone.
      if (watcher.exitCode === null) watcher.kill("SIGKILL");
    }
    expect(out.trim().split("\n").at(-1)).toBe("run cancelled");

    const listed = await cli(["runs", "list", "--status", "cancelled", "--search", suffix]);
    expect(listed.stdout).toContain(`${id}  cancelled`);
  });
});
