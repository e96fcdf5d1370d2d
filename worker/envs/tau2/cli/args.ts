/** Tiny `--flag value` parser shared by the tau2 CLIs. */
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

export function runCli(main: () => void): void {
  try {
    main();
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
