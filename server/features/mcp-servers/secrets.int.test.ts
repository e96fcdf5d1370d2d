/**
 * An MCP server's own secrets never reach a non-admin, in any text: real server processes (the issue's
 * `sh -c 'echo "Error: invalid API key $API_KEY" >&2; exit 1'`, one that prints its key in common
 * encodings, an HTTP server that echoes its Authorization header) registered by an admin, and a real
 * worker process running an evaluation whose episodes fail with the key on the server's stderr. Then
 * everything a member and a viewer can read — the servers (tRPC and REST), the run, its log, its
 * trajectories and their turns — is searched for the key in every encoding: it is in none, and the
 * diagnostics of a failed test are for admins only.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { secretForms } from "../../../lib/mcp/redact";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { startVllmDouble, type VllmDouble } from "../../../test/doubles/vllm-openai";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { misbehavingServerPath, waitForNoProcessesUnder } from "../../../test/mcp";
import { startWorkerProcess, type Child } from "../../../test/processes";
import { handleRestRequest } from "../../openapi";
import { HEALTH_DETAIL_FOR_ADMINS } from "./service";

const KEY = `sk-live-${crypto.randomBytes(12).toString("hex")}/a+b=c "q"`;
const HEADER_TOKEN = `Bearer tok-${crypto.randomBytes(12).toString("hex")}`;

/** Every spelling of the secrets a reader must never see, plus the parts that survive a cut (16 characters). */
function leaks(text: string): string[] {
  const forms = [...secretForms(KEY), ...secretForms(HEADER_TOKEN), ...secretForms(HEADER_TOKEN.slice(7))];
  const found = forms.filter((f) => text.includes(f));
  const raw = [KEY, HEADER_TOKEN.slice(7)];
  for (const secret of raw) for (let i = 0; i + 16 <= secret.length; i += 4) if (text.includes(secret.slice(i, i + 16))) found.push(secret.slice(i, i + 16));
  return found;
}

async function rest(user: TestUser, method: string, pathname: string) {
  const res = await handleRestRequest(new Request(`http://localhost/api/v1${pathname}`, { method, headers: user.headers }));
  return { status: res.status, text: await res.text() };
}

describe("MCP secrets in health details, errors, run logs and trajectories", () => {
  let admin: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let root: string;
  let httpServer: http.Server;
  let httpUrl: string;
  let vllm: VllmDouble;
  let worker: Child | undefined;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "envace-mcp-secrets-"));
    process.env.ENVACE_MCP_SCRATCH_DIR = root;
    await resetDatabase();
    admin = await signUp("admin");
    member = await signUp("member");
    viewer = await signUp("viewer");
    // A streamable-HTTP endpoint that refuses the token and quotes it back, as misconfigured servers do.
    httpServer = http.createServer((req, res) => {
      req.resume();
      res.writeHead(401, { "content-type": "text/plain" }).end(`invalid credentials: ${req.headers.authorization} (base64 ${Buffer.from(String(req.headers.authorization)).toString("base64")})`);
    });
    await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
    httpUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await vllm?.close();
    await new Promise((r) => httpServer?.close(r));
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
    delete process.env.ENVACE_MCP_SCRATCH_DIR;
    fs.rmSync(root, { recursive: true, force: true });
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  /** What a member and a viewer read of the servers, over tRPC and REST. */
  async function readersSee(name: string): Promise<string[]> {
    const out: string[] = [];
    for (const who of [member, viewer]) {
      const caller = await callerFor(who.headers);
      out.push(JSON.stringify(await caller.mcpServers.list()), JSON.stringify(await caller.mcpServers.get({ id: name })));
      for (const p of ["/mcp-servers", `/mcp-servers/${name}`]) {
        const res = await rest(who, "GET", p);
        expect(res.status).toBe(200);
        out.push(res.text);
      }
    }
    return out;
  }

  it("the issue's server: the key is redacted where it is stored, and its stderr is for admins only", async () => {
    const admins = await callerFor(admin.headers);
    const res = await admins.mcpServers.register({
      name: "leaky-sh",
      launch: { transport: "stdio", command: "sh", args: ["-c", 'echo "Error: invalid API key $API_KEY" >&2; exit 1'], env: [{ name: "API_KEY", value: KEY, secret: true }] },
    });
    // The admin sees what the server said, without the key.
    expect(res.ok).toBe(false);
    expect(res.ok ? "" : res.error).toMatch(/leaky-sh did not start: the server exited with code 1; stderr: Error: invalid API key \[secret API_KEY\]/);
    expect(res.server.healthDetail).toMatch(/Error: invalid API key \[secret API_KEY\]/);
    expect(leaks(JSON.stringify(res))).toEqual([]);
    const row = await prisma.mcpServer.findUniqueOrThrow({ where: { name: "leaky-sh" } });
    expect(leaks(JSON.stringify(row))).toEqual([]);

    const seen = await readersSee("leaky-sh");
    for (const text of seen) {
      expect(leaks(text)).toEqual([]);
      // The command is public (it names the variable); what the server wrote is not.
      expect(text).not.toContain("stderr:");
      expect(text).toContain(HEALTH_DETAIL_FOR_ADMINS);
    }
    const adminView = await rest(admin, "GET", "/mcp-servers/leaky-sh");
    expect(adminView.text).toContain("Error: invalid API key [secret API_KEY]");
    expect(leaks(adminView.text)).toEqual([]);
  });

  it("a server that prints its key URL-encoded, JSON-escaped, in base64 (alone and inside Basic credentials) and in hex", async () => {
    const script = [
      "const k = process.env.API_KEY;",
      "console.error('json ' + JSON.stringify({ key: k }));",
      "console.error('url https://vendor.example/v1?key=' + encodeURIComponent(k) + '&x=1');",
      "console.error('basic ' + Buffer.from('user:' + k).toString('base64'));",
      "console.error('b64 ' + Buffer.from(k).toString('base64url'));",
      "console.error('hex ' + Buffer.from(k).toString('hex'));",
      "process.exit(1);",
    ].join(" ");
    const res = await (await callerFor(admin.headers)).mcpServers.register({
      name: "leaky-encodings",
      launch: { transport: "stdio", command: process.execPath, args: ["-e", script], env: [{ name: "API_KEY", value: KEY, secret: true }] },
    });
    expect(res.ok).toBe(false);
    const error = res.ok ? "" : res.error;
    expect(error).toContain("json {\"key\":\"[secret API_KEY]\"}");
    expect(error).toContain("url https://vendor.example/v1?key=[secret API_KEY]&x=1");
    expect(error).toContain("hex [secret API_KEY]");
    expect(leaks(JSON.stringify(res))).toEqual([]);
    for (const text of await readersSee("leaky-encodings")) expect(leaks(text)).toEqual([]);
  });

  it("an HTTP server that quotes the header back: the header value is redacted too", async () => {
    const res = await (await callerFor(admin.headers)).mcpServers.register({
      name: "leaky-http",
      launch: { transport: "http", url: httpUrl, headers: [{ name: "Authorization", value: HEADER_TOKEN }] },
      settings: { limits: { startTimeoutS: 5 } },
    });
    expect(res.ok).toBe(false);
    expect(leaks(JSON.stringify(res))).toEqual([]);
    for (const text of await readersSee("leaky-http")) expect(leaks(text)).toEqual([]);
  });

  it("a run whose episodes break with the key on the server's stderr: no reader finds it in the run, its log or its trajectories", async () => {
    // The double behind a wrapper that announces its key on stderr first; its crash tool then ends the episode.
    const wrapper = path.join(root, "leaky-server.mjs");
    fs.writeFileSync(wrapper, `process.stderr.write("connecting to the vendor with key " + process.env.API_KEY + "\\n");\nawait import(${JSON.stringify(pathToFileURL(misbehavingServerPath).href)});\n`);
    await (await callerFor(admin.headers)).mcpServers.register({
      name: "leaky-run",
      launch: { transport: "stdio", command: process.execPath, args: [wrapper], env: [{ name: "API_KEY", value: KEY, secret: true }] },
    });
    // Two tasks whose setup crashes the server, one that runs (so the step commits its trajectories).
    const checklist = [{ question: "Called echo", check: { type: "tool_called", name: "echo" } }];
    const tasks = [
      ...["a", "b"].map((id) => ({ id, instruction: `task ${id}`, checklist, setup: [{ name: "crash", arguments: {} }] })),
      { id: "c", instruction: "task c", checklist },
    ];
    await (await callerFor(member.headers)).datasets.import({ name: "leaky-tasks", text: tasks.map((t) => JSON.stringify(t)).join("\n") });

    // The policy never speaks (every episode breaks in its setup), but a run needs one: an OpenAI double.
    vllm = await startVllmDouble({ model: "Qwen/Qwen3-8B", respond: () => "nothing" });
    await registerCheckedNode(prisma, "policy-double", ["Qwen/Qwen3-8B"], { kind: "openai", baseUrl: vllm.url });
    worker = startWorkerProcess(inject("databaseUrl"), { ENVACE_MCP_SCRATCH_DIR: root });
    const run = await (await callerFor(member.headers)).runs.create({
      name: "leaky-eval",
      config: {
        kind: "eval",
        policy: { node: "policy-double", model: "Qwen/Qwen3-8B" },
        data: { dataset: "mcp:leaky-run/leaky-tasks", instancesPerStep: 3 },
        rollout: { paradigm: "environment", maxEnvironmentErrorShare: 1 },
      },
    });
    const done = await eventually(
      async () => {
        const r = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true, error: true } });
        return r.status === "failed" || r.status === "succeeded" ? r : null;
      },
      120_000,
      `the run to end; worker said:\n${worker.output()}`,
    );
    expect(done.status, `${done.error}\n${worker.output()}`).toBe("succeeded");

    const texts: string[] = [];
    for (const who of [member, viewer]) {
      const caller = await callerFor(who.headers);
      texts.push(JSON.stringify(await caller.runs.get({ id: run.id })), JSON.stringify(await caller.runs.logs({ runId: run.id })), JSON.stringify(await caller.runs.list({})));
      texts.push(JSON.stringify(await caller.trajectories.errored({ runId: run.id })));
      const list = await caller.trajectories.list({ runId: run.id });
      texts.push(JSON.stringify(list));
      const items = (list as { items: { id: string }[] }).items;
      expect(items.length, `${done.error}\n${JSON.stringify(await caller.runs.logs({ runId: run.id }))}`).toBeGreaterThan(0);
      for (const t of items) texts.push(JSON.stringify(await caller.trajectories.get({ id: t.id })), JSON.stringify(await caller.trajectories.turns({ trajectoryId: t.id })));
      for (const p of [`/runs/${run.id}`, `/runs/${run.id}/trajectories`, ...items.map((t) => `/runs/${run.id}/trajectories/${t.id}`)]) {
        const res = await rest(who, "GET", p);
        expect(res.status, p).toBe(200);
        texts.push(res.text);
      }
    }
    const all = texts.join("\n");
    expect(leaks(all)).toEqual([]);
    // The failure is still told, with the key's place marked.
    expect(all).toContain("connecting to the vendor with key [secret API_KEY]");
    // And the rows themselves never held it.
    const stored = JSON.stringify([
      await prisma.run.findUniqueOrThrow({ where: { id: run.id } }),
      await prisma.runLog.findMany({ where: { runId: run.id } }),
      await prisma.trajectory.findMany({ where: { runId: run.id }, include: { turns: true } }),
      await prisma.mcpServer.findUniqueOrThrow({ where: { name: "leaky-run" } }),
    ], (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
    expect(leaks(stored)).toEqual([]);
  });
});
