/**
 * npm run -s bfcl:calls -- --cases FILE [--model NAME] [--today YYYY-MM-DD]
 *
 * FILE is JSON Lines, one case per line: {"id", "involved_classes", "initial_config", "long_context",
 * "turns": [["call string", …], …]}. Prints one JSON line per executed call, {"id", "turn", "index",
 * "result"}, with `result` the exact text upstream's execute_multi_turn_func_call returns. --model sets
 * the model name in upstream's instance names (default "bfcl"), which only shows when a string argument
 * contains `<method>(`. --today pins `datetime.today()` (TravelAPI's age check; default: the clock).
 * Long-context cases read long_context.py from $ENVACE_DATA_DIR/bfcl.
 */
import { readCallCases, runCallCases } from "../cases";
import { DEFAULT_MODEL_NAME } from "../world";

function parseArgs(argv: string[]): { cases: string; model: string; today?: number } {
  let cases: string | undefined;
  let model = DEFAULT_MODEL_NAME;
  let today: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") continue;
    if (arg !== "--cases" && arg !== "--model" && arg !== "--today") {
      throw new Error(`unknown argument ${JSON.stringify(arg)} (expected --cases FILE [--model NAME] [--today YYYY-MM-DD])`);
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new Error(`${arg} needs a value`);
    if (arg === "--cases") cases = value;
    else if (arg === "--model") model = value;
    else {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T12:00:00Z`))) throw new Error(`--today must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
      today = Date.parse(`${value}T12:00:00Z`);
    }
    i++;
  }
  if (!cases) throw new Error("--cases FILE is required (JSON Lines, one case per line)");
  return { cases, model, today };
}

try {
  const args = parseArgs(process.argv.slice(2));
  const cases = readCallCases(args.cases);
  const out: string[] = [];
  const flush = () => {
    if (out.length > 0) process.stdout.write(out.join(""));
    out.length = 0;
  };
  runCallCases(
    cases,
    (line) => {
      out.push(JSON.stringify(line) + "\n");
      if (out.length >= 256) flush();
    },
    { modelName: args.model, now: args.today === undefined ? undefined : () => args.today! },
  );
  flush();
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
