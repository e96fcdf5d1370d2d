/** Tiny `--flag value` parser and runner shared by the tau2 CLIs. */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TAU2_DOMAINS, type Tau2Domain } from "../../../../lib/tau2/tasks";

export function parseFlags(argv: string[], known: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") continue;
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (!name || !known.includes(name)) throw new Error(`unknown argument ${JSON.stringify(arg)} (expected ${known.map((k) => "--" + k).join(", ")})`);
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value`);
    flags[name] = value;
    i++;
  }
  return flags;
}

/** --domain (default retail). */
export function domainFlag(value: string | undefined): Tau2Domain {
  if (value === undefined) return "retail";
  if (!(TAU2_DOMAINS as readonly string[]).includes(value)) throw new Error(`--domain must be one of ${TAU2_DOMAINS.join(", ")} (got ${JSON.stringify(value)})`);
  return value as Tau2Domain;
}

/** Where a command writes: stdout and stderr for the real command, buffers for the in-process tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}
export type CliMain = (argv: string[], io: CliIo) => void;

/** Runs a command in this process: its output and exit status as spawnSync would report them. */
export function runInProcess(main: CliMain, argv: string[]): { status: number; stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { out: (t) => void (stdout += t), err: (t) => void (stderr += t) };
  const status = guarded(main, argv, io);
  return { status, stdout, stderr };
}

/** Runs the command when its module is the program's entry (tsx <file>), not when a test imports it. */
export function runCli(moduleUrl: string, main: CliMain): void {
  const entry = process.argv[1];
  if (!entry || realpathSync(entry) !== realpathSync(fileURLToPath(moduleUrl))) return;
  const io: CliIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t) };
  process.exitCode = guarded(main, process.argv.slice(2), io);
}

function guarded(main: CliMain, argv: string[], io: CliIo): number {
  try {
    main(argv, io);
    return 0;
  } catch (err) {
    io.err(`error: ${(err as Error).message}\n`);
    return 1;
  }
}
