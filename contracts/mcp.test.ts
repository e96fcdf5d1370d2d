import { describe, expect, it } from "vitest";
import { parseRunConfig } from "./run-config";
import { mcpLaunchSchema, mcpServerSettingsSchema, MCP_DATASET_REF, parseMcpDatasetRef } from "./mcp";

describe("MCP contracts", () => {
  it("a run config names an MCP dataset as mcp:<server>/<dataset>, and the run config accepts exactly those", () => {
    expect(parseMcpDatasetRef("mcp:memory/mem-tasks")).toEqual({ server: "memory", dataset: "mem-tasks" });
    for (const bad of ["mcp:Memory/x", "mcp:memory", "mcp:memory/", "mcp:/x", "mcp:memory/a/b", "mcp:memory/a b"]) {
      expect(parseMcpDatasetRef(bad)).toBeNull();
      const parsed = parseRunConfig({ data: { dataset: bad } });
      expect(parsed.ok).toBe(false);
    }
    // The run config's pattern and the reference parser agree.
    for (const good of ["mcp:memory/mem-tasks", "mcp:fs_1/0b0c8f5e-1111-4222-8333-944445555666"]) {
      expect(MCP_DATASET_REF.test(good)).toBe(true);
      expect(parseRunConfig({ data: { dataset: good } }).ok).toBe(true);
    }
  });

  it("validates a launch, naming the field", () => {
    const stdio = mcpLaunchSchema.parse({ transport: "stdio", command: "node", args: ["server.js"], env: [{ name: "TOKEN", value: "x", secret: true }] });
    expect(stdio).toEqual({ transport: "stdio", command: "node", args: ["server.js"], env: [{ name: "TOKEN", value: "x", secret: true }] });
    const issues = (v: unknown) => {
      const r = mcpLaunchSchema.safeParse(v);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issues({ transport: "stdio", command: " " })).toEqual(["command: command is required"]);
    expect(issues({ transport: "stdio", command: "node", cwd: "relative/dir" })).toEqual(["cwd: an absolute path (or one under ${EPISODE_DIR})"]);
    expect(issues({ transport: "stdio", command: "node", env: [{ name: "1BAD", value: "" }] })[0]).toMatch(/^env\.0\.name: an environment variable name/);
    expect(issues({ transport: "stdio", command: "node", env: [{ name: "A", value: "1" }, { name: "A", value: "2" }] })).toEqual(["env.1.name: variable A is given twice"]);
    expect(issues({ transport: "http", url: "ftp://x/mcp" })).toEqual(["url: must be an http(s) URL like http://host:8080/mcp"]);
    expect(issues({ transport: "http", url: "not a url" })).toEqual(["url: must be an http(s) URL like http://host:8080/mcp"]);
    expect(issues({ transport: "http", url: "http://x/mcp", headers: [{ name: "Authorization", value: "a" }, { name: "authorization", value: "b" }] })).toEqual(["headers.1.name: header authorization is given twice"]);
    expect(issues({ transport: "carrier-pigeon" })[0]).toMatch(/^transport: Invalid discriminator value/);
  });

  it("fills limits with defaults and refuses unknown settings", () => {
    expect(mcpServerSettingsSchema.parse({})).toEqual({ limits: { startTimeoutS: 30, callTimeoutS: 60, maxResultBytes: 1048576, maxSessions: 8 }, tools: [] });
    expect(mcpServerSettingsSchema.safeParse({ limits: { callTimeout: 5 } }).success).toBe(false);
    expect(mcpServerSettingsSchema.safeParse({ limits: { maxResultBytes: 10 } }).success).toBe(false);
  });
});
