import fs from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";

export interface Managed {
  name: string;
  child: ChildProcess;
}

/** Spawn a child whose output is prefixed with its name. */
export function startProcess(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Managed {
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const prefix = (chunk: Buffer) =>
    chunk
      .toString()
      .split("\n")
      .filter((l) => l.length)
      .map((l) => `[${name}] ${l}`)
      .join("\n") + "\n";
  child.stdout!.on("data", (c: Buffer) => process.stdout.write(prefix(c)));
  child.stderr!.on("data", (c: Buffer) => process.stderr.write(prefix(c)));
  return { name, child };
}

export async function waitForHttp(url: string, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process serving ${url} exited`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status < 500) return;
      lastError = `HTTP ${res.status}`;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${url} (${lastError})`);
}

export function stopAll(procs: Managed[], signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  return Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.child.exitCode !== null || p.child.signalCode) return resolve();
          const timer = setTimeout(() => p.child.kill("SIGKILL"), 8000);
          p.child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          p.child.kill(signal);
        }),
    ),
  ).then(() => {});
}

/**
 * Whether a process is running. A zombie (exited, not yet reaped — an orphan's exit waits on PID 1, which
 * in some containers reaps late or never) is not: signal 0 still reaches it, so /proc says what it is.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const state = procState(pid);
  return state !== "Z" && state !== "X";
}

/** Whether any process of the group is running (zombies aside, as `processRunning`). */
export function processGroupRunning(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch {
    return false;
  }
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return true; // no /proc: signal 0 is all there is
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat && stat.pgrp === group && stat.state !== "Z" && stat.state !== "X") return true;
  }
  return false;
}

function readStat(pid: number): { state: string; pgrp: number } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, pgrp: Number(fields[2]) };
  } catch {
    return null;
  }
}

function procState(pid: number): string | null {
  return readStat(pid)?.state ?? null;
}
