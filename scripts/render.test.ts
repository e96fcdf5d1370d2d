import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const fixtures = path.join(root, "test/fixtures/renderers");
const render = (...args: string[]) => run(process.execPath, ["--import", "tsx", path.join(root, "scripts/render.ts"), ...args], { cwd: root, maxBuffer: 64 << 20 });

describe("npm run render", () => {
  it("prints HF's text and ids for every case of a model name", async () => {
    const { stdout } = await render("--model", "Qwen/Qwen3-8B", "--cases", path.join(fixtures, "cases-qwen3.json"));
    const golden = readFileSync(path.join(fixtures, "golden-qwen3.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual(golden);
  });

  it("names the case and the field of a bad case, and an unknown model", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "render-"));
    const file = path.join(dir, "cases.json");
    writeFileSync(file, JSON.stringify([{ id: "ok", messages: [{ role: "user", content: "hi" }] }, { id: "bad", messages: [{ role: "robot", content: "x" }] }]));
    await expect(render("--model", "Qwen/Qwen3-8B", "--cases", file)).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/case "bad": messages\.0\.role: Invalid enum value/) });
    writeFileSync(file, JSON.stringify([{ id: "ok", messages: [{ role: "user", content: "hi" }] }]));
    await expect(render("--model", "acme/unknown", "--cases", file)).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/no renderer is known for model "acme\/unknown"/) });
    await expect(render("--cases", file)).rejects.toMatchObject({ code: 2 });
  });
}, 120_000);
