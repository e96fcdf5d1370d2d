/** Helpers for tests of MCP servers as environments: server launches and counting the processes they leave. */
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "../scripts/lib/database";
import type { McpLaunchSpec } from "../lib/mcp/session";

export const misbehavingServerPath = path.join(repoRoot, "test/doubles/mcp/misbehaving-server.mjs");
export const memoryServerPath = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
export const filesystemServerPath = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

/** The misbehaving double (test/doubles/mcp/misbehaving-server.mjs) with the given flags. */
export function misbehaving(...flags: string[]): McpLaunchSpec {
  return { transport: "stdio", command: process.execPath, args: [misbehavingServerPath, ...flags], env: [] };
}

/** @modelcontextprotocol/server-memory, its knowledge graph in the episode's own directory. */
export function memoryServer(): McpLaunchSpec {
  return { transport: "stdio", command: process.execPath, args: [memoryServerPath], env: [{ name: "MEMORY_FILE_PATH", value: "${EPISODE_DIR}/memory.jsonl" }] };
}

/** @modelcontextprotocol/server-filesystem, allowed only the episode's own directory. */
export function filesystemServer(): McpLaunchSpec {
  return { transport: "stdio", command: process.execPath, args: [filesystemServerPath, "${EPISODE_DIR}"], env: [] };
}

/**
 * Processes whose working directory lies under `root` (an ENVACE_MCP_SCRATCH_DIR of the test): every
 * server an episode starts, and whatever it starts, runs there unless told otherwise.
 */
export function processesUnder(root: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      // A zombie has no cwd; a live process may have a deleted one ("… (deleted)").
      if (cwd.startsWith(root)) pids.push(Number(entry));
    } catch {
      /* gone, or not ours */
    }
  }
  return pids;
}

/** Poll until no process is left under `root` (servers are stopped asynchronously), or return those left. */
export async function waitForNoProcessesUnder(root: string, timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = processesUnder(root);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}
