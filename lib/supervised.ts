/**
 * A service that `npm start`'s supervisor (scripts/lib/supervisor.ts) started exits when the supervisor is
 * gone, however it went (kill -9, OOM): the supervisor gives each service a stdin pipe that nothing writes to
 * and marks it with ENVACE_SUPERVISED=1; the kernel closes that pipe when the supervisor dies, and the service
 * sees end-of-file. As a second watch, a parent pid that changes (the service was re-parented) means the same.
 * The service then stops the way SIGTERM stops it, and exits after a grace period if that hangs.
 */
export const SUPERVISED_ENV = "ENVACE_SUPERVISED";

export interface SupervisorWatch {
  /** How the service stops gracefully (default: send itself SIGTERM, so its own handler runs). */
  stop?: () => void | Promise<void>;
  /** Exit code 1 after this long if the graceful stop has not ended the process (default 15 s). */
  graceMs?: number;
  log?: (line: string) => void;
  /** How often the parent pid is checked (default 1 s). */
  pollMs?: number;
}

/** Watch for the supervisor's death; a no-op for a process the supervisor did not start. */
export function exitWithSupervisor(opts: SupervisorWatch = {}): void {
  if (process.env[SUPERVISED_ENV] !== "1") return;
  const parent = process.ppid;
  const log = opts.log ?? ((l: string) => console.error(l));
  let gone = false;
  const onGone = (why: string) => {
    if (gone) return;
    gone = true;
    clearInterval(poll);
    // The supervisor read our output: those pipes are broken now, and a write must not crash the stop.
    for (const out of [process.stdout, process.stderr]) out.on("error", () => {});
    log(`supervisor gone (${why}); stopping`);
    setTimeout(() => process.exit(1), opts.graceMs ?? 15_000).unref();
    if (opts.stop) {
      void Promise.resolve()
        .then(opts.stop)
        .catch((err) => log(`stopping failed: ${(err as Error).message}`))
        .finally(() => process.exit(0));
    } else process.kill(process.pid, "SIGTERM");
  };
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    stdin.on("end", () => onGone("its pipe closed"));
    stdin.on("error", () => onGone("its pipe failed"));
    stdin.resume(); // read (and discard) so that end-of-file is seen
    (stdin as unknown as { unref?: () => void }).unref?.(); // the watch alone keeps nothing alive
  }
  const poll = setInterval(() => {
    if (process.ppid !== parent) onGone(`parent ${parent} exited`);
  }, opts.pollMs ?? 1000);
  poll.unref();
}
