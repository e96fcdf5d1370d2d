/**
 * The Nodes page and the node doctor: adding a node runs the doctor and the report shows every check
 * with its result and reason; editing a node's settings shows validation errors on the field (the
 * form's own and the server's) and runs the doctor again; "Run doctor" on the embedded node passes.
 * The node under test is a vLLM-like TEST DOUBLE (test/doubles/vllm-openai.ts) in this process,
 * started without a tool parser, so its tool-calling check fails with the flags that fix it.
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { createPrisma } from "../lib/db";
import { startVllmDouble, type VllmDouble } from "../test/doubles/vllm-openai";

const suffix = crypto.randomBytes(3).toString("hex");
const MODEL = "Qwen/Qwen3-30B-A3B";
const nodeName = `judge-${suffix}`;
let prisma: PrismaClient;
let admin: BrowserContext;
let vllm: VllmDouble;

test.describe.serial("Nodes page: the node doctor and node settings", () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
    vllm = await startVllmDouble({
      model: MODEL,
      toolParser: null,
      respond: (req) => (req.tools?.length ? "<think>w</think>\n\nI would call a tool." : "<think>h</think>\n\nHello there!"),
    });
    admin = await browser.newContext({ baseURL });
    const email = `doctor-admin-${suffix}@example.test`;
    for (let attempt = 0; ; attempt++) {
      const res = await admin.request.post("/api/auth/sign-up/email", { data: { email, password: "doctor-e2e-password", name: "Dora" }, headers: { origin: baseURL! } });
      if (res.ok()) break;
      if (res.status() !== 429 || attempt > 5) throw new Error(`sign-up failed: ${res.status()} ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers()["x-retry-after"] ?? 5)));
    }
    await prisma.user.update({ where: { email }, data: { role: "admin" } });
  });

  test.afterAll(async () => {
    await admin?.close();
    await vllm?.close();
    await prisma?.$disconnect();
  });

  const row = (page: Page, name: string) => page.locator(`tr[data-node="${name}"]`);

  test("adding a node runs the doctor; the report shows each check with its result and reason", async () => {
    const page = await admin.newPage();
    await page.goto("/nodes");
    const form = page.getByRole("form", { name: "Add a node" });
    await form.locator('input[name="name"]').fill(nodeName);
    await form.locator('select[name="kind"]').selectOption("openai");
    await form.locator('input[name="baseUrl"]').fill(vllm.url);
    await form.getByRole("button", { name: "Add node" }).click();

    await expect(row(page, nodeName)).toBeVisible();
    await expect(row(page, nodeName).getByTestId("doctor-summary")).toHaveText("tool-calling failed");
    await row(page, nodeName).getByRole("button", { name: "report" }).click();
    const report = page.getByTestId("doctor-report");
    await expect(report.locator('tr[data-check="models"]')).toHaveAttribute("data-status", "ok");
    await expect(report.locator('tr[data-check="chat"]')).toContainText('"Hello there!"');
    const tools = report.locator('tr[data-check="tool-calling"]');
    await expect(tools).toHaveAttribute("data-status", "failed");
    await expect(tools).toContainText("--enable-auto-tool-choice --tool-call-parser hermes");
    await expect(tools).toContainText("policy");
    await expect(row(page, nodeName)).toContainText("unhealthy");
  });

  test("editing settings shows errors on the field, then saves and runs the doctor again", async () => {
    const page = await admin.newPage();
    await page.goto("/nodes");
    await row(page, nodeName).getByRole("button", { name: "Edit" }).click();
    const edit = page.getByTestId("edit-node");
    const extraBody = edit.locator('[data-field="openai.extraBody"]');

    // The form validates with the API's schema: a reserved field, then broken JSON, named on the field.
    await extraBody.locator("textarea").fill('{"max_tokens": 5}');
    await edit.getByRole("button", { name: "Save and run the doctor" }).click();
    await expect(extraBody.getByRole("alert")).toHaveText('"max_tokens" is set by the run or the call itself; remove it from extraBody');
    await extraBody.locator("textarea").fill("{top_k: 20");
    await edit.getByRole("button", { name: "Save and run the doctor" }).click();
    await expect(extraBody.getByRole("alert")).toContainText("not valid JSON");

    // A model's rendering, with a context length below the schema's minimum.
    await extraBody.locator("textarea").fill('{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}');
    await edit.getByRole("button", { name: "Add model" }).click();
    await edit.locator("#ns-models\\.0\\.name").fill(MODEL);
    await edit.locator("#ns-models\\.0\\.renderer").selectOption("qwen3");
    await edit.locator("#ns-models\\.0\\.contextLength").fill("8");
    await edit.getByRole("button", { name: "Save and run the doctor" }).click();
    await expect(edit.locator('[data-field="models.0.contextLength"]').getByRole("alert")).toContainText("greater than or equal to 16");

    // The server's own field errors land on the field too (credentials in the URL).
    await edit.locator("#ns-models\\.0\\.contextLength").fill("32768");
    await edit.getByLabel("Base URL").fill(vllm.url.replace("http://", "http://user:secret@"));
    await edit.getByRole("button", { name: "Save and run the doctor" }).click();
    await expect(edit.getByRole("alert").filter({ hasText: "must not contain a user name or password" })).toBeVisible();

    const before = vllm.requests.length;
    await edit.getByLabel("Base URL").fill(vllm.url);
    await edit.getByRole("button", { name: "Save and run the doctor" }).click();
    await expect(edit).toHaveCount(0);
    // The doctor ran again with the new settings: the node's vendor extras went out.
    await expect.poll(() => vllm.requests.length).toBeGreaterThan(before);
    expect(vllm.requests.at(-1)).toMatchObject({ top_k: 20, chat_template_kwargs: { enable_thinking: false } });
    const stored = await prisma.node.findUniqueOrThrow({ where: { name: nodeName }, select: { settings: true } });
    expect(stored.settings).toMatchObject({ models: { [MODEL]: { renderer: "qwen3", contextLength: 32768 } }, openai: { extraBody: { top_k: 20 } } });
    await expect(page.getByTestId("doctor-report").locator('tr[data-check="tool-calling"]')).toHaveAttribute("data-status", "failed");
  });

  test("Run doctor on the embedded node samples through a sampling session and passes", async () => {
    const page = await admin.newPage();
    await page.goto("/nodes");
    const embedded = row(page, "embedded");
    await embedded.getByRole("button", { name: "Run doctor" }).click();
    await expect(embedded.getByTestId("doctor-summary")).toHaveText("passed", { timeout: 60_000 });
    const report = page.getByTestId("doctor-report");
    await expect(report.locator('tr[data-check="sampling"]')).toHaveAttribute("data-status", "ok");
    await expect(report.locator('tr[data-check="tokenizer"]')).toContainText('ids inside the tiny-gpt byte vocabulary (renderer "tiny-gpt")');
    await expect(report.locator('tr[data-check="tool-calling"]')).toHaveAttribute("data-status", "skipped");
    await expect(embedded).toContainText("healthy");
  });
});
