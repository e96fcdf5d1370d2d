/**
 * An MCP server as an environment, in Chromium: an admin registers the npm server
 * @modelcontextprotocol/server-memory (a stdio command with a plain and a secret environment value),
 * sees the tools it lists with their schemas (never the secret), imports a task list, and launches a
 * training run against `mcp:<server>/<dataset>` from the new-run form; the run finishes on the embedded
 * node and its log names the server's tools. The account is made admin through Prisma (global-setup
 * writes the database URL to .run/e2e-db-url), whatever order the files run in.
 */
import { expect, test, type Page } from "@playwright/test";
import { signUpInBrowser } from "./sign-up";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createPrisma } from "../lib/db";

const suffix = crypto.randomBytes(3).toString("hex");
const account = { name: "Mo MCP", email: `mcp-${suffix}@example.test`, password: "mcp-e2e-password" };
const server = `memory-${suffix}`;
const dataset = `shop-tasks-${suffix}`;
const memoryServer = path.resolve("node_modules/@modelcontextprotocol/server-memory/dist/index.js");

async function signUpAsAdmin(page: Page) {
  await signUpInBrowser(page, account);
  const prisma = createPrisma(fs.readFileSync(path.resolve(".run/e2e-db-url"), "utf8").trim());
  try {
    await prisma.user.update({ where: { email: account.email }, data: { role: "admin" } });
  } finally {
    await prisma.$disconnect();
  }
  // The web process remembers who a session is (server/lib/caller-cache.ts) and forgets it on the role
  // change's auth signal, which arrives moments after this write.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("current-role")).toHaveText("admin", { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
}

test("register an MCP server, see its tools, and launch a run against it", async ({ page }) => {
  test.setTimeout(360_000);
  await signUpAsAdmin(page);

  // Register and test the server.
  await page.getByRole("link", { name: "MCP servers" }).click();
  await expect(page.getByRole("heading", { name: "MCP servers", exact: true })).toBeVisible();
  const form = page.getByRole("form", { name: "Register an MCP server" });
  await form.getByLabel("Name", { exact: true }).fill(server);
  await form.getByLabel("Description", { exact: true }).fill("Knowledge-graph memory from npm");
  await form.getByLabel("Command", { exact: true }).fill(process.execPath);
  await form.getByLabel("Arguments (one per line)").fill(memoryServer);
  await form.getByLabel("Environment (NAME=value per line)").fill("MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl");
  await form.getByLabel(/^Secret environment/).fill("VENDOR_TOKEN=e2e-very-secret");
  await form.getByRole("button", { name: "Register and test" }).click();
  await expect(page.getByTestId("mcp-message")).toHaveText(new RegExp(`^Registered ${server}: 9 tool\\(s\\) listed \\(\\d+ ms\\)\\.$`), { timeout: 60_000 });

  const card = page.getByTestId(`mcp-server-${server}`);
  await expect(card.getByText("healthy", { exact: true })).toBeVisible();
  await expect(card).toContainText("memory-server");
  await expect(card).toContainText("VENDOR_TOKEN=••••");
  await expect(card).toContainText("MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl");
  const tools = card.getByTestId("mcp-tools");
  await expect(tools.getByRole("row")).toHaveCount(10); // header + 9 tools
  const readGraph = tools.getByRole("row", { name: /read_graph/ });
  await expect(readGraph).toContainText("Read the entire knowledge graph");
  await readGraph.getByText("JSON schema").click();
  await expect(readGraph.locator("pre")).toContainText('"type": "object"');
  expect(await page.content()).not.toContain("e2e-very-secret");

  // The Test action starts it again.
  await card.getByRole("button", { name: "Test" }).click();
  await expect(page.getByTestId("mcp-message")).toHaveText(new RegExp(`^${server}: 9 tool\\(s\\) listed in \\d+ ms\\.$`), { timeout: 60_000 });

  // A task list to run against it. The embedded tiny model knows only the shop domain's words and tools;
  // its calls reach the real server, which answers them (here: as calls to tools it lacks).
  await page.getByRole("link", { name: "Datasets" }).click();
  const tasks = [
    { id: "price", system: "You are a shop assistant. Use the tools.", instruction: "How much is the tea?", checklist: [{ question: "Looked the tea up", check: { type: "tool_called", name: "get_item" } }] },
    { id: "remember", system: "You are a shop assistant. Use the tools.", instruction: "Please buy 1 tea for me.", checklist: [{ question: "Recorded it", check: { type: "tool_called", name: "create_entities" } }] },
  ];
  await page.getByLabel(/^File/).setInputFiles({ name: `${dataset}.jsonl`, mimeType: "application/x-ndjson", buffer: Buffer.from(tasks.map((t) => JSON.stringify(t)).join("\n")) });
  await expect(page.getByLabel("Name")).toHaveValue(dataset);
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page.getByTestId("import-result")).toHaveText(`Imported 2 instances into ${dataset}.`);

  // Launch a training run (quickstart: rehearsal with shadow execution) against mcp:<server>/<dataset>.
  await page.getByRole("link", { name: "Runs" }).click();
  await page.getByRole("link", { name: "New run" }).click();
  await expect(page.getByTestId("run-summary")).toContainText("with shadow execution");
  await page.getByLabel("Run name").fill(`mcp run ${suffix}`);
  const set = async (field: string, value: string) => {
    const input = page.locator(`[data-field="${field}"] input`);
    await input.fill(value);
    await expect(input).toHaveValue(value);
  };
  await set("data.dataset", `mcp:${server}/${dataset}`);
  await set("data.instancesPerStep", "2");
  await set("data.rolloutsPerInstance", "2");
  await set("schedule.steps", "1");
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 300_000 });
  await expect(page.getByTestId("run-logs")).toContainText(`MCP server ${server} (memory-server`);
  await expect(page.getByTestId("run-logs")).toContainText("9 tool(s) offered: create_entities");
  await expect(page.getByTestId("run-logs")).toContainText("step 1/1: reward");
});
