/** `npm run -s node:doctor` as a child process against a vLLM-like server and SkyRL tx's contract (test doubles in this process). */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVllmDouble, type VllmDouble } from "../test/doubles/vllm-openai";
import { SkyRLDouble } from "../test/doubles/skyrl-tinker";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const doctor = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ["--import", "tsx", path.join(root, "scripts/node-doctor.ts"), ...args], { cwd: root, env: { ...process.env, ...env }, maxBuffer: 8 << 20 });
const MODEL = "Qwen/Qwen3-30B-A3B";

describe("npm run node:doctor", () => {
  let vllm: VllmDouble;
  let skyrl: SkyRLDouble;
  beforeAll(async () => {
    vllm = await startVllmDouble({
      model: MODEL,
      apiKey: "sk-from-env",
      respond: (req) => (req.tools?.length ? '<think>w</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' : "<think>h</think>\n\nHello!"),
    });
    skyrl = await new SkyRLDouble().start();
  });
  afterAll(async () => {
    await vllm?.close();
    await skyrl?.close();
  });

  it("prints the report as one JSON line and exits 0 when every check passes; the key comes from the named variable", async () => {
    const { stdout, stderr } = await doctor(["--url", vllm.url, "--kind", "openai", "--model", MODEL, "--api-key-env", "JUDGE_KEY"], { JUDGE_KEY: "sk-from-env" });
    expect(stderr).toBe("");
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    expect(report).toMatchObject({ doctor: "node", kind: "openai", model: MODEL, ok: true, url: vllm.url });
    expect(report.checks.map((c: { check: string; status: string }) => `${c.check}:${c.status}`)).toEqual(["models:ok", "chat:ok", "reasoning:ok", "tool-calling:ok"]);
    for (const c of report.checks) expect(typeof c.reason).toBe("string");
  });

  it("exits 1 when a check fails, the report naming the check and the reason", async () => {
    const err = await doctor(["--url", skyrl.url, "--kind", "tinker", "--model", "Qwen/Qwen3-8B"]).catch((e) => e);
    expect(err.code).toBe(1);
    const report = JSON.parse(err.stdout.trim());
    expect(report.ok).toBe(false);
    const tokenizer = report.checks.find((c: { check: string }) => c.check === "tokenizer");
    expect(tokenizer).toMatchObject({ status: "failed", reason: expect.stringMatching(/^tokenizer mismatch: the sample decodes to non-text under renderer "qwen3"/) });
    // A wrong key is a failed check too, not a crash.
    const denied = await doctor(["--url", vllm.url, "--kind", "openai", "--model", MODEL, "--api-key-env", "JUDGE_KEY"], { JUDGE_KEY: "sk-wrong" }).catch((e) => e);
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout).checks[0].reason).toMatch(/HTTP 401/);
  });

  it("takes node settings from a file and refuses bad usage with exit 2, naming what is wrong", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "doctor-cli-"));
    const settings = path.join(dir, "settings.json");
    writeFileSync(settings, JSON.stringify({ models: { "Qwen/Qwen3-8B": { renderer: "llama3.1" } } }));
    const mismatched = await doctor(["--url", skyrl.url, "--kind", "tinker", "--model", "Qwen/Qwen3-8B", "--settings", settings]).catch((e) => e);
    expect(JSON.parse(mismatched.stdout).facts.renderer).toBe("llama3.1");

    writeFileSync(settings, JSON.stringify({ openai: { extraBody: { max_tokens: 5 } } }));
    await expect(doctor(["--url", vllm.url, "--kind", "openai", "--model", MODEL, "--settings", settings])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/settings\.openai\.extraBody\.max_tokens: "max_tokens" is set by the run/),
    });
    await expect(doctor(["--url", vllm.url, "--kind", "grpc", "--model", MODEL])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--kind must be tinker, openai or embedded/) });
    await expect(doctor(["--url", "gpu-1:8000", "--kind", "openai", "--model", MODEL])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--url must be an http\(s\) URL like http:\/\/gpu-1:8000/) });
    await expect(doctor(["--url", vllm.url, "--kind", "openai"])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--model is required/) });
    await expect(doctor(["--url", vllm.url, "--kind", "openai", "--model", MODEL, "--api-key-env", "NOT_SET_ANYWHERE"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/the environment variable NOT_SET_ANYWHERE \(--api-key-env\) is not set/),
    });
  });
}, 180_000);
