/**
 * `envace`: EnvACE Studio from scripts, over the REST API (/api/v1, documented at /api/openapi.json)
 * and the live event stream (/api/events). Run `envace --help`; README "Scripts" shows examples.
 *
 * Exit codes: 0 done (for `runs watch`: the run succeeded); 1 the command failed (bad arguments, an API
 * error — printed with each offending field's path —, the server unreachable); 2 the watched run failed;
 * 3 the watched run was cancelled; 130 interrupted.
 */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { Command, CommanderError, Option } from "commander";
import { presets } from "../contracts/run-config";
import { checkpointEvaluationConfig } from "../lib/checkpoint-eval";
import { formatSettingValue, runSettings, runSettingSections, settingTitle } from "../contracts/run-settings";
import { terminalStatuses } from "../contracts/jobs";
import { ApiClient, ApiError } from "./client";
import { credentialsPath, loadCredentials, removeCredentials, saveCredentials } from "./credentials";
import { followEvents } from "./events";
import { registrationBody, serverLine, toolsView, type McpServer, type McpTestResult, type RegisterOptions } from "./mcp";
import { applyOverrides, parseOverride, UsageError } from "./overrides";
import { formatMetric, outcomeExitCodes, pickMetrics, renderProgress, type RunProgress } from "./progress";
import { addStudyCommands } from "./studies-commands";
import { baseConfigOf } from "./base-config";

interface Run extends RunProgress {
  id: string;
  kind: string;
  paradigm: string;
  policyNode: string;
  tags: string[];
  createdAt: string;
  finishedAt: string | null;
  config?: unknown;
  evaluatedCheckpoint?: { step: number; runId: string; run: { name: string } } | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A training run by id, or by name when exactly one training run has it. */
async function trainingRun(client: ApiClient, ref: string): Promise<Run> {
  if (UUID.test(ref)) return client.request<Run>("GET", `/runs/${ref}`);
  const page = await client.request<{ items: Run[] }>("GET", "/runs", undefined, { search: ref, kind: "train", limit: "100" });
  const named = page.items.filter((r) => r.name === ref);
  if (named.length === 0) throw new UsageError(`no training run named "${ref}" (give its name or its id; envace runs list shows both)`);
  if (named.length > 1) throw new UsageError(`${named.length} training runs are named "${ref}": give one's id (${named.map((r) => r.id).join(", ")})`);
  return client.request<Run>("GET", `/runs/${named[0]!.id}`);
}

interface GlobalOptions {
  url?: string;
  json?: boolean;
}

const out = (line = ""): void => void process.stdout.write(`${line}\n`);
const err = (line = ""): void => void process.stderr.write(`${line}\n`);

function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** The server and token: --url / ENVACE_URL and ENVACE_TOKEN override the stored login. */
function clientFor(cmd: Command): ApiClient {
  const stored = loadCredentials();
  const url = globals(cmd).url || process.env.ENVACE_URL || stored?.url;
  const token = process.env.ENVACE_TOKEN || stored?.token;
  if (!url || !token) throw new UsageError("not logged in: run `envace login --url <server>` (or set ENVACE_URL and ENVACE_TOKEN)");
  return new ApiClient(url, token);
}

function printJson(value: unknown) {
  out(JSON.stringify(value, null, 2));
}

function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

async function readTokenFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    // Prompt without echoing the token.
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const muted = rl as unknown as { _writeToOutput: (s: string) => void };
    process.stderr.write("API token (Settings → API tokens): ");
    muted._writeToOutput = () => {};
    const answer = await new Promise<string>((resolve) => rl.question("", resolve));
    rl.close();
    process.stderr.write("\n");
    return answer.trim();
  }
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/** How often `runs watch` re-reads the run when no change signal came (signals do the real work). */
const SAFETY_REFRESH_MS = 30_000;

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** How `--set` reads a value, for `runs settings` and its help. */
const SET_HELP = [
  "Set any of these with `envace runs create … --set <key>=<value>`: a value is JSON when it parses as JSON",
  "(8, 0.5, true, \"text\", {\"node\": \"j\", \"model\": \"m\"}), else text. A list takes a comma list or JSON:",
  "  --set data.instanceIds=0,1,2        --set 'data.instanceIds=[\"0\",\"1\",\"2\"]'",
].join("\n");

function runLine(r: Run): string {
  const metrics = pickMetrics(r.latestMetrics)
    .slice(0, 1)
    .map(([k, v]) => `${k} ${formatMetric(v)}`)
    .join("");
  return [r.id, r.status.padEnd(9), r.kind.padEnd(5), `${r.progressStep}/${r.totalSteps}`.padStart(9), r.createdAt.slice(0, 16).replace("T", " "), r.name, metrics]
    .filter(Boolean)
    .join("  ");
}

async function watchRun(client: ApiClient, id: string, json: boolean): Promise<number> {
  const tty = process.stdout.isTTY && !json;
  let last = "";
  let lastShown: Run | null = null;
  const show = (run: Run) => {
    lastShown = run;
    if (json) {
      const line = JSON.stringify({ id: run.id, status: run.status, progressStep: run.progressStep, totalSteps: run.totalSteps, etaSeconds: run.etaSeconds, latestMetrics: run.latestMetrics });
      if (line !== last) out(line);
      last = line;
      return;
    }
    const line = renderProgress(run);
    if (line === last) return;
    last = line;
    if (tty) process.stdout.write(`\r\x1b[2K${line}`);
    else out(line);
  };

  let run = await client.request<Run>("GET", `/runs/${id}`);
  if (!json) out(`${run.name} (${run.id}) — ${run.kind}, ${run.paradigm} paradigm, node ${run.policyNode}`);
  show(run);
  if (!terminalStatuses.includes(run.status as never)) {
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once("SIGINT", () => {
      stop();
      if (tty) process.stdout.write("\n");
      err("stopped watching (the run goes on)");
      process.exit(130);
    });
    let refreshing: Promise<void> | null = null;
    let again = false;
    const refresh = async (): Promise<void> => {
      // One read at a time; a signal that arrives meanwhile causes one more read.
      if (refreshing) {
        again = true;
        return refreshing;
      }
      refreshing = (async () => {
        do {
          again = false;
          run = await client.request<Run>("GET", `/runs/${id}`);
          show(run);
        } while (again);
        if (terminalStatuses.includes(run.status as never)) stop();
      })().finally(() => (refreshing = null));
      return refreshing;
    };
    // A safety net under the signals: re-read now and then even if none arrives.
    const safety = setInterval(() => void refresh().catch(() => {}), SAFETY_REFRESH_MS);
    await followEvents(client, {
      signal: controller.signal,
      onConnect: refresh,
      onEvent: async (e) => {
        if (e.id === id && (e.t === "run" || e.t === "step")) await refresh();
      },
      onDisconnect: (reason) => {
        if (!tty && !json) err(`event stream interrupted (${reason}); reconnecting`);
      },
    }).finally(() => clearInterval(safety));
  }
  const final = lastShown ?? run;
  if (tty) process.stdout.write("\n");
  if (!json) {
    out(`run ${final.status}${final.error ? `: ${final.error}` : ""}`);
  }
  return outcomeExitCodes[final.status] ?? 1;
}

function packageVersion(): string {
  const file = new URL("../package.json", import.meta.url);
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name("envace")
    .description("EnvACE Studio from the command line: launch and follow runs, import datasets, register MCP servers, export reports.")
    .version(packageVersion(), "-V, --version")
    .option("--url <url>", "server URL (default: the one `envace login` stored, or ENVACE_URL)")
    .option("--json", "print machine-readable JSON instead of text")
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      `
Credentials: \`envace login\` stores the server URL and token in ${credentialsPath()} (file mode 600).
ENVACE_URL and ENVACE_TOKEN override them (e.g. in CI).
Exit codes: 0 ok (runs watch: the run succeeded), 1 the command failed, 2 the watched run failed,
3 the watched run was cancelled, 130 interrupted.`,
    );

  program
    .command("login")
    .description("check an API token against the server and store it (create tokens in the app: Settings → API tokens)")
    .option("--token <token>", "the token (better: pipe it on stdin or type it at the prompt, so it stays out of shell history)")
    .addHelpText("after", "\nExample:\n  envace login --url http://localhost:3000    (then paste the token at the prompt)")
    .action(async (opts: { token?: string }, cmd: Command) => {
      const given = globals(cmd).url || process.env.ENVACE_URL;
      if (!given) throw new UsageError("login needs the server: envace login --url http://host:3000");
      const url = given.replace(/\/$/, "");
      if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`--url ${given}: expected http(s)://host[:port]`);
      const token = opts.token || process.env.ENVACE_TOKEN || (await readTokenFromStdin());
      if (!token) throw new UsageError("no token given (--token, ENVACE_TOKEN, or on stdin)");
      const me = await new ApiClient(url, token).request<{ email: string; role: string }>("GET", "/me");
      const file = saveCredentials({ url, token, email: me.email, role: me.role, savedAt: new Date().toISOString() });
      if (globals(cmd).json) printJson({ url, email: me.email, role: me.role, credentials: file });
      else out(`Logged in to ${url} as ${me.email} (${me.role}). Token stored in ${file} (mode 600).`);
    });

  program
    .command("logout")
    .description("forget the stored token")
    .action(() => {
      const removed = removeCredentials();
      out(removed ? `Removed ${credentialsPath()}.` : "No stored token.");
    });

  const runs = program.command("runs").description("launch, list, follow and cancel runs");

  runs
    .command("create")
    .description("launch a run from a config file or a preset, with --set overrides")
    .addOption(new Option("--config <file>", "run config as JSON (the RunConfigInput schema; omitted settings take their defaults)").conflicts("preset"))
    .addOption(new Option("--preset <name>", "start from a preset").choices(Object.keys(presets)))
    .option("--set <key=value>", "override one setting, e.g. --set data.instancesPerStep=8; a list as a comma list or JSON (repeatable; see `envace runs settings`)", collect)
    .option("--name <name>", "run name (default: the preset's or the config file's name)")
    .option("--tag <tag>", "tag the run (repeatable)", collect)
    .option("--dry-run", "print the config that would be sent, and send nothing")
    .option("--watch", "follow the run after launching it (exit code as `runs watch`)")
    .addHelpText(
      "after",
      "\nExamples:\n  envace runs create --preset quickstart --set schedule.steps=10 --name smoke\n  envace runs create --config run.json --set policy.node=gpu-1 --tag ablation\n  envace runs create --preset bfclEval --set data.instanceIds=multi_turn_base_0,multi_turn_base_1\n  envace runs create --preset bfclEval --set 'data.instanceIds=[\"multi_turn_base_0\"]'",
    )
    .action(async (opts: { config?: string; preset?: string; set?: string[]; name?: string; tag?: string[]; dryRun?: boolean; watch?: boolean }, cmd: Command) => {
      const { config, name } = baseConfigOf(opts, readJsonFile);
      if (opts.dryRun) {
        printJson(config);
        return;
      }
      const client = clientFor(cmd);
      const run = await client.request<Run>("POST", "/runs", { name: opts.name ?? name, tags: opts.tag ?? [], config });
      if (globals(cmd).json && !opts.watch) printJson(run);
      else if (!globals(cmd).json) out(`Created run ${run.id} "${run.name}" (${run.status}, ${run.kind === "eval" ? "evaluation" : `${run.totalSteps} steps`}). Follow it: envace runs watch ${run.id}`);
      if (opts.watch) process.exitCode = await watchRun(client, run.id, Boolean(globals(cmd).json));
    });

  runs
    .command("evaluate")
    .description("evaluate a training run's checkpoint on a benchmark (an evaluation run of policy.checkpoint)")
    .argument("<run>", "the training run: its id, or its name")
    .option("--step <step>", 'the checkpoint\'s step, or "latest"', "latest")
    .requiredOption("--dataset <dataset>", "what to evaluate on, as data.dataset: bfcl:<categories>, tau2:retail, builtin:shop, dataset:<name>, mcp:<server>/<dataset>")
    .addOption(new Option("--split <split>", "the split to evaluate").choices(["train", "test"]).default("test"))
    .option("--repeats <k>", "independent passes, each with its own seed: Avg@k is their mean", "1")
    .option("--set <key=value>", "override one setting of the evaluation (repeatable; see `envace runs settings`)", collect)
    .option("--name <name>", "run name (default: <run> step <n> on <dataset>)")
    .option("--tag <tag>", "tag the run (repeatable)", collect)
    .option("--dry-run", "print the config that would be sent, and send nothing")
    .option("--watch", "follow the run after launching it (exit code as `runs watch`)")
    .addHelpText(
      "after",
      "\nThe evaluation keeps the training run's node, base model, sampling and limits, and runs the benchmark's test split in its\nreal environment. Examples:\n  envace runs evaluate my-run --dataset bfcl:multi_turn_base --set data.instanceIds=multi_turn_base_0,multi_turn_base_1 --repeats 2 --watch\n  envace runs evaluate 1f0c… --step 40 --dataset tau2:retail --set rollout.userSimulator.node=judge --set rollout.userSimulator.model=Qwen/Qwen3-30B-A3B",
    )
    .action(async (ref: string, opts: { step: string; dataset: string; split: "train" | "test"; repeats: string; set?: string[]; name?: string; tag?: string[]; dryRun?: boolean; watch?: boolean }, cmd: Command) => {
      const step = opts.step === "latest" ? "latest" : Number(opts.step);
      if (step !== "latest" && !(Number.isInteger(step) && step >= 1)) throw new UsageError(`--step ${opts.step}: a step number (1, 2, …) or "latest"`);
      const repeats = Number(opts.repeats);
      if (!Number.isInteger(repeats) || repeats < 1) throw new UsageError(`--repeats ${opts.repeats}: a whole number of passes, 1 or more`);
      const client = clientFor(cmd);
      const training = await trainingRun(client, ref);
      if (training.kind !== "train") throw new UsageError(`run "${training.name}" is an evaluation; name the training run whose checkpoint to evaluate`);
      let config = checkpointEvaluationConfig(training.config, { runId: training.id, step, dataset: opts.dataset, split: opts.split, repeats }) as Record<string, unknown>;
      config = applyOverrides(config, (opts.set ?? []).map((s) => parseOverride(s)));
      if (opts.dryRun) return printJson(config);
      const name = opts.name ?? `${training.name} step ${step} on ${opts.dataset}`.slice(0, 200);
      const run = await client.request<Run>("POST", "/runs", { name, tags: opts.tag ?? [], config });
      if (globals(cmd).json && !opts.watch) printJson(run);
      else if (!globals(cmd).json) {
        const c = run.evaluatedCheckpoint;
        out(`Created run ${run.id} "${run.name}": the checkpoint of run "${c?.run.name ?? training.name}" at step ${c?.step ?? step} on ${opts.dataset}${repeats > 1 ? `, ${repeats} passes` : ""}. Follow it: envace runs watch ${run.id}`);
      }
      if (opts.watch) process.exitCode = await watchRun(client, run.id, Boolean(globals(cmd).json));
    });

  runs
    .command("list")
    .description("list runs, newest first")
    .option("--status <status>", "only runs in this status (repeatable)", collect)
    .option("--search <text>", "name contains")
    .option("--tag <tag>", "with this tag")
    .option("--limit <n>", "at most this many", "20")
    .action(async (opts: { status?: string[]; search?: string; tag?: string; limit: string }, cmd: Command) => {
      const page = await clientFor(cmd).request<{ items: Run[] }>("GET", "/runs", undefined, {
        status: opts.status,
        search: opts.search,
        tag: opts.tag,
        limit: opts.limit,
      });
      if (globals(cmd).json) return printJson(page.items);
      if (!page.items.length) return out("No runs.");
      for (const r of page.items) out(runLine(r));
    });

  runs
    .command("watch")
    .description("follow a run live (progress, ETA, latest metrics) until it ends; exits 0 succeeded, 2 failed, 3 cancelled")
    .argument("<id>", "run id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      process.exitCode = await watchRun(clientFor(cmd), id, Boolean(globals(cmd).json));
    });

  runs
    .command("cancel")
    .description("cancel a queued or running run")
    .argument("<id>", "run id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const run = await clientFor(cmd).request<Run>("POST", `/runs/${id}/cancel`, {});
      if (globals(cmd).json) return printJson(run);
      out(run.status === "cancelled" ? `Run ${id} cancelled.` : `Cancel requested for run ${id}; it stops at the worker's next heartbeat.`);
    });

  runs
    .command("archive")
    .description("archive a finished run's turns to the archive store (gzip JSON Lines) and drop them from the database")
    .argument("<id>", "run id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const r = await clientFor(cmd).request<{ turns: number; bytes: number; uri: string; sha256: string }>("POST", `/runs/${id}/archive`, {});
      if (globals(cmd).json) return printJson(r);
      out(`Archived ${r.turns} turns of run ${id}: ${(r.bytes / 1e6).toFixed(1)} MB at ${r.uri} (sha256 ${r.sha256}).`);
    });

  runs
    .command("restore")
    .description("load an archived run's turns back into the database")
    .argument("<id>", "run id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const r = await clientFor(cmd).request<{ turns: number }>("POST", `/runs/${id}/restore`, {});
      if (globals(cmd).json) return printJson(r);
      out(`Restored ${r.turns} turns of run ${id}.`);
    });

  runs
    .command("delete")
    .description("delete a finished run and everything it stored (its archive files stay)")
    .argument("<id>", "run id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const r = await clientFor(cmd).request<{ id: string }>("DELETE", `/runs/${id}`);
      if (globals(cmd).json) return printJson(r);
      out(`Run ${id} deleted.`);
    });

  runs
    .command("retention")
    .description("archive a finished run's turns N days after it finished (the worker's sweep); 'off' keeps them")
    .argument("<id>", "run id")
    .argument("<days>", "whole days, or off")
    .action(async (id: string, days: string, _opts: unknown, cmd: Command) => {
      const value = days === "off" ? null : Number(days);
      if (value !== null && !(Number.isInteger(value) && value >= 0)) throw new Error(`days must be a whole number of days (0 or more) or "off", got ${days}`);
      const r = await clientFor(cmd).request<{ retainTurnsDays: number | null }>("PATCH", `/runs/${id}/retention`, { retainTurnsDays: value });
      if (globals(cmd).json) return printJson(r);
      out(r.retainTurnsDays === null ? `Run ${id} keeps its turns.` : `Run ${id}'s turns are archived ${r.retainTurnsDays} days after it finished.`);
    });

  runs
    .command("settings")
    .description("every run setting: key (for --set), label, default, unit and help")
    .addHelpText("after", `\n${SET_HELP}`)
    .action((_opts: unknown, cmd: Command) => {
      const settings = runSettings();
      if (globals(cmd).json) return printJson(settings);
      out(SET_HELP);
      out();
      for (const section of runSettingSections) {
        const mine = settings.filter((s) => s.section === section.key);
        if (!mine.length) continue;
        out(`${section.label}`);
        for (const s of mine) {
          const choices = s.kind === "enum" ? ` (${s.options.join(" | ")})` : s.kind === "number-or" ? ` (a number or ${s.words.join(" | ")})` : "";
          out(`  ${s.key}  ${settingTitle(s)}${s.unit ? ` [${s.unit}]` : ""}${s.advanced ? " (advanced)" : ""}`);
          out(`      ${s.description}`);
          out(`      default: ${formatSettingValue(s.kind === "object-list" ? (s.default as unknown[] | undefined)?.length ?? 0 : s.default)}${s.kind === "object-list" ? " items" : ""}${choices}`);
          // A list of objects (schedule.evalSuites): set it whole as JSON; each item has these fields.
          if (s.kind === "object-list") {
            for (const f of s.fields) {
              out(`      .${f.key}  ${settingTitle(f)}${f.unit ? ` [${f.unit}]` : ""}${f.optional || f.default !== undefined ? "" : " (required)"}: ${f.description}${f.default !== undefined ? ` (default ${formatSettingValue(f.default)})` : ""}`);
            }
          }
        }
        out();
      }
    });

  addStudyCommands(program, { clientFor, json: (cmd) => Boolean(globals(cmd).json), printJson, readJsonFile, collect, refreshMs: SAFETY_REFRESH_MS });

  const datasets = program.command("datasets").description("import and list datasets");

  datasets
    .command("import")
    .description("import a dataset file (CM2 rows as a JSON array or JSONL, or tasks JSONL; at most 20 MB)")
    .argument("<file>", "the file")
    .option("--name <name>", "dataset name, used as dataset:<name> in run configs (default: the file name)")
    .addOption(new Option("--split <split>", "which split the rows go to").choices(["train", "test"]).default("train"))
    .addOption(new Option("--format <format>", "cm2 rows, tasks JSONL (instructions plus checklist items), or auto (decided by the first row)").choices(["auto", "cm2", "tasks"]).default("auto"))
    .option("--skip-invalid", "import the valid rows and list the invalid ones instead of rejecting the file")
    .option("--max-prompt-length <tokens>", "drop rows whose prompt is longer than this − 500 Qwen3 tokens (server default 4000; \"none\" keeps every row)")
    .action(async (file: string, opts: { name?: string; split: "train" | "test"; format: string; skipInvalid?: boolean; maxPromptLength?: string }, cmd: Command) => {
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (e) {
        throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (opts.maxPromptLength !== undefined && opts.maxPromptLength !== "none" && !/^\d+$/.test(opts.maxPromptLength)) {
        throw new UsageError(`--max-prompt-length ${opts.maxPromptLength}: expected a number of tokens or "none"`);
      }
      const name = opts.name ?? path.basename(file).replace(/\.(jsonl?|ndjson)$/i, "").replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 100);
      const res = await clientFor(cmd).request<{
        dataset: { id: string; name: string; format: string };
        imported: number;
        skipped: { line: number; message: string }[];
        skippedCount: number;
        tooLong: { line: number; message: string }[];
        tooLongCount: number;
      }>(
        "POST",
        "/datasets",
        {
          name,
          text,
          split: opts.split,
          format: opts.format,
          skipInvalid: Boolean(opts.skipInvalid),
          ...(opts.maxPromptLength === undefined ? {} : { maxPromptLength: opts.maxPromptLength === "none" ? null : Number(opts.maxPromptLength) }),
        },
      );
      if (globals(cmd).json) return printJson(res);
      // A task list has no tools of its own: it runs against a registered MCP server.
      if (res.dataset.format === "tasks") {
        out(`Imported ${res.imported} task(s) into dataset "${res.dataset.name}" (${res.dataset.id}); run them against an MCP server with data.dataset=mcp:<server>/${res.dataset.name} (\`envace mcp list\`).`);
      } else out(`Imported ${res.imported} instance(s) into dataset "${res.dataset.name}" (${res.dataset.id}); use data.dataset=dataset:${res.dataset.name}.`);
      if (res.skippedCount) {
        err(`Skipped ${res.skippedCount} invalid row(s):`);
        for (const s of res.skipped) err(`  line ${s.line}: ${s.message}`);
      }
      if (res.tooLongCount) {
        err(`Dropped ${res.tooLongCount} row(s) whose prompt is too long (--max-prompt-length):`);
        for (const s of res.tooLong) err(`  line ${s.line}: ${s.message}`);
      }
    });

  datasets
    .command("list")
    .description("list imported datasets")
    .action(async (_opts: unknown, cmd: Command) => {
      const rows = await clientFor(cmd).request<{ id: string; name: string; format: string; instanceCount: number; createdAt: string }[]>("GET", "/datasets");
      if (globals(cmd).json) return printJson(rows);
      if (!rows.length) return out("No datasets.");
      for (const d of rows) out(`${d.id}  ${d.name}  ${d.format}  ${d.instanceCount} instances  ${d.createdAt.slice(0, 10)}`);
    });

  const mcp = program
    .command("mcp")
    .description("MCP servers as environments: list them and their tools; admins register, test and remove them")
    .addHelpText("after", "\nA run uses a server's tools on an imported task list: envace runs create … --set data.dataset=mcp:<server>/<dataset>");

  mcp
    .command("list")
    .description("list registered MCP servers: health, transport, tool count, command or URL")
    .action(async (_opts: unknown, cmd: Command) => {
      const servers = await clientFor(cmd).request<McpServer[]>("GET", "/mcp-servers");
      if (globals(cmd).json) return printJson(servers);
      if (!servers.length) return out("No MCP servers registered (an admin registers one: envace mcp register NAME --stdio COMMAND | --url URL).");
      for (const s of servers) out(serverLine(s));
    });

  mcp
    .command("tools")
    .description("a server's tools as its last test listed them: parameters (? = optional) and descriptions; --json gives the JSON schemas")
    .argument("<server>", "server name (or id)")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const server = await clientFor(cmd).request<McpServer>("GET", `/mcp-servers/${encodeURIComponent(ref)}`);
      if (globals(cmd).json) return printJson(server.tools);
      for (const line of toolsView(server)) out(line);
    });

  mcp
    .command("register")
    .description("register an MCP server (admins): a stdio command or a streamable-HTTP URL; it is started once to list its tools")
    .argument("<name>", "server name, used as mcp:<name>/<dataset> in run configs (lowercase letters, digits, - and _)")
    .option("--stdio <command>", "the program to run for each episode (without a shell; found on the worker's PATH)")
    .option("--arg <arg>", "an argument of the program (repeatable, in order)", collect)
    .option("--cwd <dir>", "working directory (default: the episode's own scratch directory)")
    .option("--env <name=value>", "an environment variable of the server (repeatable); the server gets these and nothing of the worker's but PATH", collect)
    .option("--secret-env <name[=value]>", "a secret environment variable, stored encrypted and never shown again; NAME alone takes the value from this shell's environment (repeatable)", collect)
    .option("--url <url>", "a streamable-HTTP endpoint, e.g. http://tools.internal:8080/mcp")
    .option("--header <name: value>", "an HTTP header for --url (repeatable; values are stored encrypted and never shown again)", collect)
    .option("--description <text>", "what the server is")
    .option("--tool <name>", "offer only this tool to the policy (repeatable; default: every tool the server lists)", collect)
    .option("--start-timeout <seconds>", "seconds the server may take to start (default 30)")
    .option("--call-timeout <seconds>", "seconds one tool call may take (default 60)")
    .option("--max-result-bytes <bytes>", "largest message the server may send (default 1 MiB)")
    .option("--max-sessions <n>", "episodes of this server at once per worker (default 8)")
    .addHelpText(
      "after",
      `
\${EPISODE_DIR} in --arg, --cwd and --env values is each episode's own scratch directory (quote it for the shell).
The command runs where the worker runs (and the web server, for the test): install the server there first
(an \`npx -y …\` command would download it again for every episode, whose HOME is fresh).
Examples (after \`npm install -g @modelcontextprotocol/server-memory @modelcontextprotocol/server-filesystem\`):
  envace mcp register memory --stdio mcp-server-memory --env 'MEMORY_FILE_PATH=\${EPISODE_DIR}/memory.jsonl'
  envace mcp register files --stdio mcp-server-filesystem --arg '\${EPISODE_DIR}' --tool read_text_file --tool write_file
  VENDOR_KEY=… envace mcp register vendor --stdio vendor-mcp --secret-env VENDOR_KEY
  envace mcp register search --url https://tools.example.org/mcp --header "Authorization: Bearer $SEARCH_TOKEN"
Exits 1 when the server fails its first test (it stays registered, marked unhealthy).`,
    )
    .action(async (name: string, opts: RegisterOptions, cmd: Command) => {
      const body = registrationBody(name, opts);
      const res = await clientFor(cmd).request<McpTestResult>("POST", "/mcp-servers", body);
      if (globals(cmd).json) printJson(res);
      else if (res.ok) {
        out(`Registered MCP server ${res.server.name} (${res.server.id}): ${res.server.health}, ${res.tools} tool(s): ${res.server.tools.map((t) => t.name).join(", ")}.`);
        out(`Use it in a run: --set data.dataset=mcp:${res.server.name}/<dataset>`);
      } else {
        err(`Registered MCP server ${res.server.name} (${res.server.id}), but it failed its test: ${res.error}`);
        err(`It stays registered, marked unhealthy: fix it and run \`envace mcp test ${res.server.name}\`, or \`envace mcp remove ${res.server.name}\`.`);
      }
      if (!res.ok) process.exitCode = 1;
    });

  mcp
    .command("test")
    .description("start a server (admins), list its tools and record them with its health; exits 1 when it fails")
    .argument("<server>", "server name (or id)")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const res = await clientFor(cmd).request<McpTestResult>("POST", `/mcp-servers/${encodeURIComponent(ref)}/test`, {});
      if (globals(cmd).json) printJson(res);
      else if (res.ok) out(`MCP server ${res.server.name} is healthy: ${res.tools} tool(s) listed in ${res.ms} ms.`);
      else err(`MCP server ${res.server.name} failed its test: ${res.error}`);
      if (!res.ok) process.exitCode = 1;
    });

  mcp
    .command("remove")
    .description("remove a server (admins); refused while a queued or running run uses it")
    .argument("<server>", "server name (or id)")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const res = await clientFor(cmd).request<{ id: string }>("DELETE", `/mcp-servers/${encodeURIComponent(ref)}`);
      if (globals(cmd).json) return printJson(res);
      out(`Removed MCP server ${ref}.`);
    });

  const reports = program.command("reports").description("export reports");

  reports
    .command("export")
    .description("export a report: md (Markdown with tables, math and figures), csv, latex or json")
    .argument("<id>", "report id")
    .addOption(new Option("--format <format>", "export format").choices(["md", "csv", "latex", "json"]).makeOptionMandatory())
    .option("-o, --output <file>", "write to this file instead of stdout")
    .action(async (id: string, opts: { format: string; output?: string }, cmd: Command) => {
      const file = await clientFor(cmd).request<{ fileName: string; content: string }>("GET", `/reports/${id}/export`, undefined, { format: opts.format });
      if (opts.output) {
        fs.writeFileSync(opts.output, file.content);
        err(`Wrote ${opts.output}`);
      } else process.stdout.write(file.content);
    });

  return program;
}

function printError(e: unknown) {
  if (e instanceof ApiError) {
    err(`error: ${e.message}${e.status ? ` (HTTP ${e.status} ${e.code})` : ""}`);
    for (const f of e.fieldErrors) err(`  ${f.path || "(input)"}: ${f.message}`);
    if (e.status === 401) err("  the token is unknown or revoked: run `envace login` again");
  } else if (e instanceof UsageError) err(`error: ${e.message}`);
  else err(`error: ${(e as Error).stack ?? String(e)}`);
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  for (const sub of program.commands.flatMap((c) => [c, ...c.commands])) sub.exitOverride();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    printError(e);
    return 1;
  }
}

// `envace runs list | head` closes the pipe early: that is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

process.exitCode = await main(process.argv);
