/**
 * Datasets in Chromium: a fresh account (admin when this file runs alone, member otherwise) uploads a
 * valid CM2 JSONL file and sees its instances, then an invalid file and sees the errors by line with
 * nothing imported, then imports the same file's valid rows with "skip invalid rows".
 */
import { expect, test, type Page } from "@playwright/test";
import { signUpInBrowser } from "./sign-up";
import crypto from "node:crypto";
import { cm2Jsonl, cm2Row } from "../test/fixtures/cm2";

const suffix = crypto.randomBytes(3).toString("hex");
const account = { name: "Dana Datasets", email: `datasets-${suffix}@example.test`, password: "datasets-e2e-password" };

async function signUp(page: Page) {
  await signUpInBrowser(page, account);
}

function jsonlFile(name: string, text: string) {
  return { name, mimeType: "application/x-ndjson", buffer: Buffer.from(text, "utf8") };
}

test("upload a valid CM2 file, then an invalid one with errors by line", async ({ page }) => {
  await signUp(page);
  await page.getByRole("link", { name: "Datasets" }).click();
  await expect(page.getByRole("heading", { name: "Datasets", exact: true })).toBeVisible();

  // Valid file: the name defaults from the file name.
  const good = `weather-${suffix}`;
  await page.getByLabel(/^File/).setInputFiles(jsonlFile(`${good}.jsonl`, cm2Jsonl(2)));
  await expect(page.getByLabel("Name")).toHaveValue(good);
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page.getByTestId("import-result")).toHaveText(`Imported 2 instances into ${good}.`);
  const table = page.getByTestId("datasets-table");
  await table.getByRole("button", { name: good }).click();
  const detail = page.getByTestId("dataset-detail");
  await expect(detail).toContainText(`dataset:${good}`);
  await expect(detail.getByRole("row")).toHaveCount(3); // header + 2 instances
  await expect(detail).toContainText("cm2-1");
  await expect(detail).toContainText("Will it rain in Paris tomorrow?");

  // Invalid file: line 2 is not JSON, line 3 has no messages → rejected as a whole, errors by line.
  const broken = `broken-${suffix}`;
  const text = [JSON.stringify(cm2Row(7)), "{not json", JSON.stringify({ ...cm2Row(8), messages: [] })].join("\n");
  await page.getByLabel(/^File/).setInputFiles(jsonlFile("broken.jsonl", text));
  await page.getByLabel("Name").fill(broken);
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page.getByTestId("import-error")).toContainText("2 invalid rows; nothing was imported");
  const errors = page.getByTestId("import-line-errors");
  await expect(errors.getByRole("row")).toHaveCount(3);
  await expect(errors.getByRole("row").nth(1)).toContainText(/^2\s*not valid JSON/);
  await expect(errors.getByRole("row").nth(2)).toContainText(/^3\s*messages/);
  await expect(table.getByRole("button", { name: broken })).toHaveCount(0);

  // The same file with "skip invalid rows": the valid line is imported, the skipped ones are listed.
  await page.getByLabel("Skip invalid rows").check();
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page.getByTestId("import-result")).toHaveText(`Imported 1 instance into ${broken}; skipped 2 invalid rows.`);
  await expect(page.getByTestId("import-line-errors").getByRole("row")).toHaveCount(3);
  await expect(table.getByRole("button", { name: broken })).toBeVisible();
});
