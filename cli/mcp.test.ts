import { describe, expect, it } from "vitest";
import { registrationBody, serverLine, toolSignature, toolsView, type McpServer } from "./mcp";
import { UsageError } from "./overrides";

describe("envace mcp register: the registration body", () => {
  it("builds a stdio launch with arguments in order, plain and secret environment, limits and a tool selection", () => {
    const body = registrationBody(
      "memory",
      {
        stdio: "mcp-server-memory",
        arg: ["--verbose", "${EPISODE_DIR}"],
        env: ["MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl", "EMPTY=", "EQ=a=b"],
        secretEnv: ["TOKEN=abc", "FROM_SHELL"],
        tool: ["read_graph"],
        callTimeout: "2.5",
        maxSessions: "4",
        description: "graph",
      },
      { FROM_SHELL: "shell-value" },
    );
    expect(body).toEqual({
      name: "memory",
      description: "graph",
      launch: {
        transport: "stdio",
        command: "mcp-server-memory",
        args: ["--verbose", "${EPISODE_DIR}"],
        env: [
          { name: "MEMORY_FILE_PATH", value: "${EPISODE_DIR}/memory.jsonl", secret: false },
          { name: "EMPTY", value: "", secret: false },
          { name: "EQ", value: "a=b", secret: false },
          { name: "TOKEN", value: "abc", secret: true },
          { name: "FROM_SHELL", value: "shell-value", secret: true },
        ],
      },
      settings: { tools: ["read_graph"], limits: { callTimeoutS: 2.5, maxSessions: 4 } },
    });
  });

  it("builds an HTTP launch with curl-style headers", () => {
    expect(registrationBody("search", { url: "https://tools.example.org/mcp", header: ["Authorization: Bearer x:y", "X-Team:  research "] })).toEqual({
      name: "search",
      launch: { transport: "http", url: "https://tools.example.org/mcp", headers: [{ name: "Authorization", value: "Bearer x:y" }, { name: "X-Team", value: "research" }] },
      settings: { tools: [], limits: {} },
    });
  });

  it("refuses what cannot be a launch before sending anything, naming the flag", () => {
    const cases: [Parameters<typeof registrationBody>[1], RegExp][] = [
      [{}, /give the server: --stdio COMMAND/],
      [{ stdio: "a", url: "http://x" }, /either --stdio or --url, not both/],
      [{ url: "http://x", arg: ["a"], env: ["A=1"] }, /--arg, --env apply to --stdio servers only/],
      [{ stdio: "a", header: ["A: b"] }, /--header applies to --url servers only/],
      [{ stdio: "a", env: ["NOVALUE"] }, /--env NOVALUE: expected NAME=VALUE$/],
      [{ stdio: "a", env: ["=x"] }, /--env =x: expected NAME=VALUE/],
      [{ stdio: "a", secretEnv: ["UNSET_HERE"] }, /--secret-env UNSET_HERE: UNSET_HERE is not set in this shell's environment/],
      [{ url: "http://x", header: ["no colon"] }, /--header no colon: expected "Name: value"/],
      [{ stdio: "a", callTimeout: "soon" }, /--call-timeout soon: expected a number/],
      [{ stdio: "a", maxSessions: "2.5" }, /--max-sessions 2.5: expected a whole number/],
    ];
    for (const [opts, message] of cases) expect(() => registrationBody("x", opts, {}), JSON.stringify(opts)).toThrow(message);
    expect(() => registrationBody("x", {}, {})).toThrow(UsageError);
  });
});

const server: McpServer = {
  id: "7d3c8a8e-0000-4000-8000-000000000001",
  name: "memory",
  description: "",
  launch: { transport: "stdio", command: "mcp-server-memory", args: ["--x"], cwd: null, env: [] },
  settings: { tools: ["read_graph", "open_nodes"], limits: {} },
  tools: [
    { name: "read_graph", description: "Read the entire\n  knowledge graph", inputSchema: { type: "object", properties: {} } },
    {
      name: "open_nodes",
      description: "Open nodes",
      inputSchema: { type: "object", properties: { names: { type: "array" }, depth: { type: ["integer", "null"] }, raw: {} }, required: ["names"] },
    },
    { name: "delete_entities", inputSchema: { type: "object" } },
  ],
  serverInfo: { name: "memory-server", version: "0.6.3" },
  health: "healthy",
  healthDetail: null,
  checkedAt: "2026-05-01T10:20:30.000Z",
};

describe("envace mcp list / tools: text views", () => {
  it("a server line names health, transport, tool count and how it is reached", () => {
    expect(serverLine(server)).toBe("memory  healthy    stdio   3 tools  mcp-server-memory --x");
    expect(serverLine({ ...server, health: "unhealthy", launch: { transport: "http", url: "http://h/mcp", headers: [] }, tools: [server.tools[0]!] })).toBe(
      "memory  unhealthy  http     1 tool  http://h/mcp",
    );
  });

  it("a tool reads as a signature, optional parameters marked", () => {
    expect(toolSignature(server.tools[1]!)).toBe("open_nodes(names: array, depth?: integer|null, raw?: any)");
    expect(toolSignature(server.tools[2]!)).toBe("delete_entities()");
  });

  it("lists each tool with its description, marks tools outside the selection, and says how to use the server", () => {
    expect(toolsView(server)).toEqual([
      "memory (memory-server 0.6.3): healthy, checked 2026-05-01 10:20",
      "read_graph()",
      "    Read the entire knowledge graph",
      "open_nodes(names: array, depth?: integer|null, raw?: any)",
      "    Open nodes",
      "delete_entities()  (not offered to the policy: outside the tool selection)",
      "Use in a run: --set data.dataset=mcp:memory/<dataset>",
    ]);
    expect(toolsView({ ...server, tools: [], health: "unhealthy", healthDetail: "spawn ENOENT", checkedAt: null, serverInfo: null })).toEqual([
      "memory: unhealthy, never tested",
      "  spawn ENOENT",
      "No tools recorded. Run `envace mcp test memory` (admins) to list them.",
    ]);
  });
});
