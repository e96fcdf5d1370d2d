/**
 * Every MCP server process this process started, so none outlives it. Each server runs as the leader
 * of its own process group (spawned `detached`), so stopping it stops whatever it started too (`npx`,
 * `sh -c`, a Python venv shim …). When this process exits — a worker shutting down, the web server's
 * test action — every group still alive is killed. (A worker killed with SIGKILL cannot run code: its
 * servers then see their stdin close, on which stdio MCP servers exit.)
 */
import type { ChildProcess } from "node:child_process";

const live = new Map<number, ChildProcess>();
let hooked = false;

/** Send `signal` to the whole process group led by `pid`; false when nothing of it is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function killAllNow() {
  for (const pid of live.keys()) signalGroup(pid, "SIGKILL");
  live.clear();
}

export function trackServerProcess(child: ChildProcess): void {
  if (child.pid === undefined) return;
  live.set(child.pid, child);
  if (!hooked) {
    hooked = true;
    process.once("exit", killAllNow);
  }
}

export function untrackServerProcess(pid: number | undefined): void {
  if (pid !== undefined) live.delete(pid);
}

/** Process groups of MCP servers this process has started and not yet stopped. */
export function liveServerProcessCount(): number {
  return live.size;
}

/**
 * Stop a server's process group: SIGTERM, then SIGKILL once the leader has exited or `graceMs` passed
 * (the group is killed either way, so children that ignored SIGTERM go too).
 */
export async function stopProcessGroup(child: ChildProcess, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (!exited) {
    signalGroup(pid, "SIGTERM");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      if (child.exitCode !== null || child.signalCode !== null) {
        clearTimeout(timer);
        resolve();
      }
    });
  }
  signalGroup(pid, "SIGKILL");
  untrackServerProcess(pid);
}
