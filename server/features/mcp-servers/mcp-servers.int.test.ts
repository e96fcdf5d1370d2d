/**
 * MCP servers through the real tRPC router against real Postgres and real server processes: admins
 * register (stdio command or HTTP URL) and test, everyone signed in reads, secrets never come back,
 * broken servers are recorded as such, runs are checked at launch, and in-use servers are kept.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMcpSession } from "../../../lib/mcp/session";
import { launchSpecOf, storedSettingsOf } from "../../../lib/mcp/store";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { memoryServerPath, misbehavingServerPath, waitForNoProcessesUnder } from "../../../test/mcp";

describe("MCP servers API", () => {
  let admin: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let root: string;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "envace-mcp-api-"));
    process.env.ENVACE_MCP_SCRATCH_DIR = root;
    await resetDatabase();
    admin = await signUp("admin");
    member = await signUp("member");
    viewer = await signUp("viewer");
    await registerCheckedNode(prisma); // the embedded node the configs name
  });
  afterAll(async () => {
    expect(await waitForNoProcessesUnder(root)).toEqual([]);
    delete process.env.ENVACE_MCP_SCRATCH_DIR;
    fs.rmSync(root, { recursive: true, force: true });
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("registers a stdio server, lists its tools, and keeps secret values write-only", async () => {
    const caller = await callerFor(admin.headers);
    const registered = await caller.mcpServers.register({
      name: "memory",
      description: "Knowledge graph memory (npm @modelcontextprotocol/server-memory)",
      launch: {
        transport: "stdio",
        command: process.execPath,
        args: [memoryServerPath],
        env: [
          { name: "MEMORY_FILE_PATH", value: "${EPISODE_DIR}/memory.jsonl" },
          { name: "VENDOR_TOKEN", value: "tok-very-secret", secret: true },
        ],
      },
      settings: { tools: ["read_graph", "search_nodes"], limits: { callTimeoutS: 20 } },
    });
    expect(registered.ok).toBe(true);
    expect(registered.server).toMatchObject({
      name: "memory",
      health: "healthy",
      serverInfo: { name: "memory-server" },
      launch: {
        transport: "stdio",
        command: process.execPath,
        args: [memoryServerPath],
        cwd: null,
        env: [
          { name: "MEMORY_FILE_PATH", secret: false, value: "${EPISODE_DIR}/memory.jsonl" },
          { name: "VENDOR_TOKEN", secret: true, value: null },
        ],
      },
      settings: { tools: ["read_graph", "search_nodes"], limits: { callTimeoutS: 20, startTimeoutS: 30, maxSessions: 8 } },
    });
    const graph = registered.server.tools.find((t) => t.name === "read_graph")!;
    expect(graph.description).toBe("Read the entire knowledge graph");
    expect(graph.inputSchema.type).toBe("object");

    // Readers see servers and tools, never the secret.
    for (const who of [admin, member, viewer]) {
      const list = await (await callerFor(who.headers)).mcpServers.list();
      expect(list.map((s) => s.name)).toEqual(["memory"]);
      expect(JSON.stringify(list)).not.toContain("tok-very-secret");
    }
    const row = await prisma.mcpServer.findUniqueOrThrow({ where: { name: "memory" } });
    expect(JSON.stringify(row.env)).not.toContain("tok-very-secret");
    // …but the server gets it.
    expect(launchSpecOf(row.name, row)).toMatchObject({ env: [{ name: "MEMORY_FILE_PATH" }, { name: "VENDOR_TOKEN", value: "tok-very-secret" }] });
  });

  it("passes a secret to the server it was written for, and takes it out of what the server answers", async () => {
    const caller = await callerFor(admin.headers);
    await caller.mcpServers.register({
      name: "double",
      launch: { transport: "stdio", command: process.execPath, args: [misbehavingServerPath], env: [{ name: "SECRET_TOKEN", value: "s3cr3t-value", secret: true }] },
    });
    const row = await prisma.mcpServer.findUniqueOrThrow({ where: { name: "double" } });
    const session = await openMcpSession(launchSpecOf(row.name, row), { limits: storedSettingsOf(row.name, row.settings).limits, label: row.name });
    try {
      const out = await session.call("env", { name: "SECRET_TOKEN" });
      // The server read it (its answer is not null); the answer that reaches the policy and the trajectory does not carry it.
      expect(out.content).toEqual([{ type: "text", text: '{"value":"[secret SECRET_TOKEN]"}' }]);
    } finally {
      await session.close();
    }
  });

  it("records a server that does not start as unhealthy, with what it said, and tests again on request", async () => {
    const caller = await callerFor(admin.headers);
    const res = await caller.mcpServers.register({ name: "broken", launch: { transport: "stdio", command: process.execPath, args: [misbehavingServerPath, "--fail-start"] } });
    expect(res.ok).toBe(false);
    expect(res.ok ? "" : res.error).toMatch(/broken did not start: the server exited with code 2; stderr: misbehaving-server: cannot open its database/);
    expect(res.server).toMatchObject({ health: "unhealthy", tools: [] });
    const missing = await caller.mcpServers.register({ name: "nowhere", launch: { transport: "stdio", command: "/no/such/program" } });
    expect(missing.ok ? "" : missing.error).toMatch(/cannot start \/no\/such\/program: spawn \/no\/such\/program ENOENT/);

    // A selection naming a tool the server lacks is reported by the test.
    const memory = (await caller.mcpServers.list()).find((s) => s.name === "memory")!;
    await caller.mcpServers.update({ id: memory.id, settings: { tools: ["read_graph", "teleport"], limits: memory.settings!.limits } });
    const tested = await caller.mcpServers.test({ id: memory.id });
    expect(tested).toMatchObject({ ok: false, error: "the selected tool(s) teleport are not offered by the server", server: { health: "unhealthy" } });
    await caller.mcpServers.update({ id: memory.id, settings: { tools: [], limits: memory.settings!.limits } });
    expect(await caller.mcpServers.test({ id: memory.id })).toMatchObject({ ok: true, tools: 9, server: { health: "healthy" } });
  });

  it("lets only admins register, change, test and remove servers", async () => {
    const server = (await (await callerFor(admin.headers)).mcpServers.list())[0]!;
    for (const who of [member, viewer]) {
      const c = await callerFor(who.headers);
      await expectTrpcError(c.mcpServers.register({ name: "sneaky", launch: { transport: "stdio", command: "sh", args: ["-c", "id"] } }), "FORBIDDEN", /admin only/);
      await expectTrpcError(c.mcpServers.test({ id: server.id }), "FORBIDDEN");
      await expectTrpcError(c.mcpServers.update({ id: server.id, description: "x" }), "FORBIDDEN");
      await expectTrpcError(c.mcpServers.remove({ id: server.id }), "FORBIDDEN");
    }
    expect(await prisma.mcpServer.count({ where: { name: "sneaky" } })).toBe(0);
  });

  it("refuses bad registrations, naming the field", async () => {
    const caller = await callerFor(admin.headers);
    const fields = async (p: Promise<unknown>) => {
      const err = await expectTrpcError(p, "BAD_REQUEST");
      return (err.cause as { issues?: { path: (string | number)[] }[] }).issues?.map((i) => i.path.join("."));
    };
    expect(await fields(caller.mcpServers.register({ name: "Bad Name", launch: { transport: "stdio", command: "node" } }))).toEqual(["name"]);
    expect(await fields(caller.mcpServers.register({ name: "x", launch: { transport: "stdio", command: "" } }))).toEqual(["launch.command"]);
    expect(await fields(caller.mcpServers.register({ name: "x", launch: { transport: "http", url: "not a url" } }))).toEqual(["launch.url"]);
    expect(await fields(caller.mcpServers.register({ name: "x", launch: { transport: "stdio", command: "node" }, settings: { limits: { callTimeoutS: 0 } } }))).toEqual(["settings.limits.callTimeoutS"]);
    await expectTrpcError(caller.mcpServers.register({ name: "memory", launch: { transport: "stdio", command: "node" } }), "CONFLICT", /already exists/);
  });

  it("checks a run's mcp:<server>/<dataset> at launch, and keeps a server that a queued or running run uses", async () => {
    const caller = await callerFor(admin.headers);
    await caller.datasets.import({ name: "mem-tasks", text: JSON.stringify({ instruction: "Remember Ada.", checklist: [{ question: "Stored", check: { type: "tool_called", name: "create_entities" } }] }) });
    const launch = (dataset: string) => caller.runs.create({ name: "mcp-run", config: { kind: "eval", data: { dataset }, rollout: { paradigm: "environment" } } });
    const noServer = await expectTrpcError(launch("mcp:nobody/mem-tasks"), "BAD_REQUEST", /data\.dataset: no MCP server named "nobody" is registered/);
    expect((noServer.cause as { fieldErrors?: { path: string }[] }).fieldErrors).toEqual([{ path: "config.data.dataset", message: expect.stringContaining("nobody") }]);
    await expectTrpcError(launch("mcp:memory/nothing-here"), "BAD_REQUEST", /no imported dataset "nothing-here"/);
    const run = await launch("mcp:memory/mem-tasks");

    const memory = (await caller.mcpServers.list()).find((s) => s.name === "memory")!;
    await expectTrpcError(caller.mcpServers.remove({ id: memory.id }), "CONFLICT", /MCP server memory is used by 1 queued or running run: "mcp-run" \(queued\)/);
    await caller.runs.cancel({ id: run.id });
    await caller.mcpServers.remove({ id: memory.id });
    expect(await prisma.mcpServer.count({ where: { name: "memory" } })).toBe(0);
  });
});
