/**
 * The `envace` CLI as a child process (`node bin/envace.mjs`, as `npx envace` runs it) for integration
 * tests, with its own config directory; every child a test leaves running is killed by `killAll`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { repoRoot } from "../scripts/lib/database";
import { eventually } from "./helpers";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  stdout: () => string;
  stderr: () => string;
  done: Promise<CliResult>;
  kill: () => void;
}

export interface CliOptions {
  stdin?: string;
  env?: Record<string, string>;
}

export function cliRunner(configDir: () => string) {
  const children = new Set<ChildProcess>();

  function start(args: string[], opts: CliOptions = {}): RunningCli {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin/envace.mjs"), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ENVACE_CONFIG_DIR: configDir(), ENVACE_URL: "", ENVACE_TOKEN: "", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.end(opts.stdin ?? "");
    children.add(child);
    const done = new Promise<CliResult>((resolve) =>
      child.on("close", (code) => {
        children.delete(child);
        resolve({ code, stdout, stderr });
      }),
    );
    return { stdout: () => stdout, stderr: () => stderr, done, kill: () => child.kill("SIGKILL") };
  }

  return {
    start,
    /** Run to the end. */
    run: (args: string[], opts?: CliOptions) => start(args, opts).done,
    /** Wait for the child's output to satisfy `check`; a timeout shows what it printed. */
    async waitFor(child: RunningCli, check: (stdout: string) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
      try {
        await eventually(async () => check(child.stdout()), timeoutMs, what);
      } catch (err) {
        throw new Error(`${(err as Error).message}\nstdout:\n${child.stdout()}\nstderr:\n${child.stderr()}`);
      }
    },
    /** Children still running when the tests end (a failed test's watcher) are killed, never left behind. */
    killAll() {
      for (const child of children) child.kill("SIGKILL");
    },
  };
}
