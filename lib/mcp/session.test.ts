/**
 * MCP sessions against real server processes: the misbehaving double (test/doubles/mcp) and the npm
 * server @modelcontextprotocol/server-memory. Every failure is coded, every process is gone after.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { getEventListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcpLimitsSchema } from "../../contracts/mcp";
import { repoRoot } from "../../scripts/lib/database";
import { memoryServer, misbehaving, processesUnder, waitForNoProcessesUnder } from "../../test/mcp";
import { McpSessionError } from "./errors";
import { liveServerProcessCount } from "./processes";
import { openMcpSession, type McpSession } from "./session";

const limits = mcpLimitsSchema.parse({ startTimeoutS: 10, callTimeoutS: 3, maxResultBytes: 256 * 1024 });
let root: string;
const open: McpSession[] = [];

async function session(spec: Parameters<typeof openMcpSession>[0], over: Partial<typeof limits> = {}) {
  const s = await openMcpSession(spec, { limits: { ...limits, ...over }, label: "double", listTools: true });
  open.push(s);
  return s;
}

async function failure(p: Promise<unknown>): Promise<McpSessionError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof McpSessionError) return e;
    throw e;
  }
  throw new Error("expected an McpSessionError");
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "envace-mcp-session-"));
  process.env.ENVACE_MCP_SCRATCH_DIR = root;
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  expect(await waitForNoProcessesUnder(root)).toEqual([]);
  expect(liveServerProcessCount()).toBe(0);
});
afterAll(() => {
  delete process.env.ENVACE_MCP_SCRATCH_DIR;
  fs.rmSync(root, { recursive: true, force: true });
});

describe("an MCP session", () => {
  it("lists tools, calls them, and runs the server with only the configured environment in its own scratch directory", async () => {
    process.env.ENVACE_TEST_LEAK = "worker secret";
    const spec = misbehaving();
    if (spec.transport === "stdio") spec.env.push({ name: "GREETING", value: "hi from ${EPISODE_DIR}" });
    const s = await session(spec);
    expect(s.serverInfo).toEqual({ name: "misbehaving", version: "1.0.0" });
    expect(s.tools.map((t) => t.name)).toContain("echo");
    expect(await s.call("echo", { text: "hello" })).toEqual({ content: [{ type: "text", text: "hello" }] });
    const envOf = async (name: string) => JSON.parse(((await s.call("env", { name })).content[0] as { text: string }).text).value;
    expect(await envOf("ENVACE_TEST_LEAK")).toBeNull();
    expect(await envOf("DATABASE_URL")).toBeNull();
    expect(await envOf("GREETING")).toBe(`hi from ${s.episodeDir}`);
    expect(await envOf("HOME")).toBe(s.episodeDir);
    expect(await envOf("PATH")).toBe(process.env.PATH);
    expect((await s.call("cwd", {})).content).toEqual([{ type: "text", text: s.episodeDir }]);
    expect(s.episodeDir!.startsWith(root)).toBe(true);
    await s.close();
    expect(fs.existsSync(s.episodeDir!)).toBe(false);
    delete process.env.ENVACE_TEST_LEAK;
  });

  it("answers a JSON-RPC error (unknown tool) as an isError result, as hosts show it", async () => {
    const s = await session(misbehaving());
    expect(await s.call("no_such_tool", {})).toEqual({ content: [{ type: "text", text: "MCP error -32602: Tool no_such_tool not found" }], isError: true });
  });

  it("gives every session a fresh process", async () => {
    const a = await session(misbehaving());
    const b = await session(misbehaving());
    await a.call("counter", {});
    expect(await a.call("counter", {})).toEqual({ content: [{ type: "text", text: "2" }] });
    expect(await b.call("counter", {})).toEqual({ content: [{ type: "text", text: "1" }] });
    expect(a.episodeDir).not.toBe(b.episodeDir);
  });

  it("works with a real npm server (@modelcontextprotocol/server-memory)", async () => {
    const s = await session(memoryServer());
    expect(s.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["create_entities", "read_graph", "search_nodes"]));
    await s.call("create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }] });
    const graph = await s.call("read_graph", {});
    expect(graph.structuredContent).toEqual({ entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }], relations: [] });
    expect(fs.existsSync(path.join(s.episodeDir!, "memory.jsonl"))).toBe(true);
  });
});

describe("an MCP server that misbehaves", () => {
  it("fails to start: START_FAILED with its stderr", async () => {
    const e = await failure(session(misbehaving("--fail-start")));
    expect(e.code).toBe("START_FAILED");
    expect(e.message).toMatch(/exited with code 2.*cannot open its database/s);
  });

  it("leaves no listener on the caller's signal, whether the start fails or succeeds", async () => {
    // One signal shared by a run's episodes: a listener left per failed start piled up until Node warned
    // (MaxListenersExceededWarning: 11 abort listeners added to [AbortSignal]).
    const run = new AbortController();
    for (let i = 0; i < 3; i++) {
      const e = await failure(openMcpSession(misbehaving("--fail-start"), { limits, label: "double", signal: run.signal }));
      expect(e.code).toBe("START_FAILED");
    }
    const ok = await openMcpSession(misbehaving(), { limits, label: "double", signal: run.signal });
    open.push(ok);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("names a command that does not exist: START_FAILED", async () => {
    const e = await failure(session({ transport: "stdio", command: "/nonexistent/mcp-server", args: [], env: [] }));
    expect(e.code).toBe("START_FAILED");
    expect(e.message).toMatch(/cannot start \/nonexistent\/mcp-server: spawn .*ENOENT/);
  });

  it("never answers initialize: START_FAILED after the start timeout, process stopped", async () => {
    const e = await failure(session(misbehaving("--hang-start"), { startTimeoutS: 1 }));
    expect(e.code).toBe("START_FAILED");
    expect(e.message).toMatch(/no answer to initialize within 1 s/);
  });

  it("writes something other than JSON-RPC on stdout: the session ends (while starting, or MALFORMED_RESULT on a call)", async () => {
    const e = await failure(session(misbehaving("--banner")));
    expect(e.code).toBe("START_FAILED");
    expect(e.message).toMatch(/not a JSON-RPC message: "misbehaving-server v1 listening on stdio"/);
    const s = await session(misbehaving());
    const garbage = await failure(s.call("garbage", {}));
    expect(garbage.code).toBe("MALFORMED_RESULT");
  });

  it("returns a result that is not a CallToolResult: MALFORMED_RESULT", async () => {
    const s = await session(misbehaving());
    const e = await failure(s.call("malformed", {}));
    expect(e.code).toBe("MALFORMED_RESULT");
    expect(e.message).toMatch(/tool malformed returned a result that is not an MCP CallToolResult/);
  });

  it("crashes mid-call: CRASHED with its exit code and stderr; later calls fail the same way", async () => {
    const s = await session(misbehaving());
    const e = await failure(s.call("crash", {}));
    expect(e.code).toBe("CRASHED");
    expect(e.message).toMatch(/exited with code 3.*segfault \(on purpose\)/s);
    expect((await failure(s.call("echo", { text: "again" }))).code).toBe("CRASHED");
  });

  it("hangs: TIMEOUT after the call timeout, and the server is stopped", async () => {
    const s = await session(misbehaving(), { callTimeoutS: 1 });
    const e = await failure(s.call("hang", {}));
    expect(e.code).toBe("TIMEOUT");
    expect(e.message).toBe("tool hang did not answer within 1 s (callTimeoutS)");
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
  });

  it("returns 50 MB: RESULT_TOO_LARGE, refused while it is still arriving", async () => {
    const s = await session(misbehaving());
    const started = Date.now();
    const e = await failure(s.call("huge", { mb: 50 }));
    expect(e.code).toBe("RESULT_TOO_LARGE");
    expect(e.message).toMatch(/larger than the limit of \d+ bytes \(maxResultBytes\)/);
    // Refused without reading 50 MB (a generous bound on a loaded machine).
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("leaves nothing behind when it starts children of its own", async () => {
    const s = await session(misbehaving());
    const child = Number(((await s.call("spawn_child", {})).content[0] as { text: string }).text);
    expect(processesUnder(root)).toContain(child);
    await s.close();
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
  });
});

describe("a streamable-HTTP MCP server", () => {
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    server = spawn(process.execPath, [path.join(repoRoot, "test/doubles/mcp/http-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
    const port = await new Promise<number>((resolve, reject) => {
      server.stdout!.on("data", (d: Buffer) => {
        const m = /listening (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
      server.once("exit", () => reject(new Error("the HTTP double exited")));
    });
    url = `http://127.0.0.1:${port}/mcp`;
  });
  afterAll(() => void server?.kill("SIGKILL"));

  const spec = (token = "test-token") => ({ transport: "http" as const, url, headers: [{ name: "Authorization", value: `Bearer ${token}` }] });

  it("gives every episode a fresh session, with the configured headers", async () => {
    const a = await session(spec());
    const b = await session(spec());
    expect(a.tools.map((t) => t.name)).toEqual(["counter", "huge"]);
    await a.call("counter", {});
    expect(await a.call("counter", {})).toEqual({ content: [{ type: "text", text: "2" }] });
    expect(await b.call("counter", {})).toEqual({ content: [{ type: "text", text: "1" }] });
  });

  it("refuses a server that turns the client away: START_FAILED", async () => {
    const e = await failure(session(spec("wrong")));
    expect(e.code).toBe("START_FAILED");
    expect(e.message).toMatch(/did not start: .*unauthorized/);
  });

  it("stops reading an oversized answer: RESULT_TOO_LARGE", async () => {
    const s = await session(spec());
    const e = await failure(s.call("huge", { mb: 2 }));
    expect(e.code).toBe("RESULT_TOO_LARGE");
  });

  it("cannot be reached: START_FAILED", async () => {
    const e = await failure(session({ transport: "http", url: "http://127.0.0.1:9/mcp", headers: [] }));
    expect(e.code).toBe("START_FAILED");
  });
});

describe("starting an MCP session", () => {
  it("gives up and stops the server when its signal aborts mid-start", async () => {
    const controller = new AbortController();
    const pending = openMcpSession(misbehaving("--hang-start"), { limits: { ...limits, startTimeoutS: 600 }, label: "double", signal: controller.signal });
    const deadline = Date.now() + 10_000;
    while (processesUnder(root).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(processesUnder(root)).toHaveLength(1);
    controller.abort();
    const e = await failure(pending);
    expect(e.code).toBe("START_FAILED");
    expect(e.message).toMatch(/start cancelled/);
    expect(await waitForNoProcessesUnder(root, 5000)).toEqual([]);
  });
});
