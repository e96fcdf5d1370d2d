/**
 * `envace studies create|list|get|watch`: launch a study (a base config or preset with --set, --grid
 * setting=v1,v2 (repeatable) and --seeds), list them, show one with its per-benchmark table, and follow
 * one until every run has finished (exit 0 all succeeded, 2 one failed, 3 one was cancelled).
 */
import { Command, Option } from "commander";
import { presets } from "../contracts/run-config";
import { terminalStatuses } from "../contracts/jobs";
import type { ApiClient } from "./client";
import { followEvents } from "./events";
import { baseConfigOf } from "./base-config";
import { UsageError } from "./overrides";
import { parseGridArg, parseSeedsArg, studyExitCode, studyProgress, tableLines, type GridAxisArg, type StudyRunView, type StudyTableView } from "./studies";

/** What the commands take from the program (cli/main.ts). */
interface Deps {
  clientFor(cmd: Command): ApiClient;
  json(cmd: Command): boolean;
  printJson(value: unknown): void;
  readJsonFile(file: string, what: string): unknown;
  collect(value: string, previous: string[] | undefined): string[];
  /** How often a watch re-reads without a change signal. */
  refreshMs: number;
}

const out = (line = ""): void => void process.stdout.write(`${line}\n`);
const err = (line = ""): void => void process.stderr.write(`${line}\n`);

interface Study {
  id: string;
  name: string;
  grid: GridAxisArg[];
  seeds: number[];
  runs: (StudyRunView & { cell: { values: Record<string, unknown>; seed: number } | null })[];
  groups: { label: string; runs: { id: string; seed: number }[] }[];
}

/** Follow a study until every run has finished; the exit code says how they ended (studyExitCode). */
async function watchStudy(client: ApiClient, id: string, json: boolean, refreshMs: number): Promise<number> {
  const tty = process.stdout.isTTY && !json;
  let study = await client.request<Study>("GET", `/studies/${id}`);
  const done = (s: Study) => s.runs.every((r) => terminalStatuses.includes(r.status as never));
  let last = "";
  const show = (s: Study) => {
    const line = json ? JSON.stringify({ id: s.id, runs: s.runs.map((r) => ({ id: r.id, status: r.status, progressStep: r.progressStep, totalSteps: r.totalSteps })) }) : studyProgress(s.runs);
    if (line === last) return;
    last = line;
    if (tty) process.stdout.write(`\r\x1b[2K${line}`);
    else out(line);
  };
  if (!json) out(`${study.name} (${study.id}) — ${study.runs.length} runs in ${study.groups.length} group(s)`);
  show(study);
  if (!done(study)) {
    const controller = new AbortController();
    process.once("SIGINT", () => {
      controller.abort();
      if (tty) process.stdout.write("\n");
      err("stopped watching (the study goes on)");
      process.exit(130);
    });
    const ids = new Set(study.runs.map((r) => r.id));
    let refreshing: Promise<void> | null = null;
    let again = false;
    const refresh = async (): Promise<void> => {
      if (refreshing) {
        again = true;
        return refreshing;
      }
      refreshing = (async () => {
        do {
          again = false;
          study = await client.request<Study>("GET", `/studies/${id}`);
          show(study);
        } while (again);
        if (done(study)) controller.abort();
      })().finally(() => (refreshing = null));
      return refreshing;
    };
    const safety = setInterval(() => void refresh().catch(() => {}), refreshMs);
    await followEvents(client, {
      signal: controller.signal,
      onConnect: refresh,
      onEvent: async (e) => {
        if (e.t === "run" && ids.has(e.id)) await refresh();
      },
      onDisconnect: (reason) => {
        if (!tty && !json) err(`event stream interrupted (${reason}); reconnecting`);
      },
    }).finally(() => clearInterval(safety));
  }
  if (tty) process.stdout.write("\n");
  if (!json) {
    for (const r of study.runs.filter((x) => x.status !== "succeeded")) out(`  ${r.name}: ${r.status}`);
    for (const line of tableLines(await client.request<StudyTableView>("GET", `/studies/${id}/table`))) out(line);
  }
  return studyExitCode(study.runs);
}

export function addStudyCommands(program: Command, deps: Deps): void {
  const studies = program.command("studies").description("launch and follow studies: runs that differ only in a seed or a small grid of settings");

  studies
    .command("create")
    .description("launch a study: one run per grid cell and seed, all created together (or none)")
    .addOption(new Option("--config <file>", "the base run config as JSON (RunConfigInput)").conflicts("preset"))
    .addOption(new Option("--preset <name>", "start the base config from a preset").choices(Object.keys(presets)))
    .option("--set <key=value>", "override one setting of the base config (repeatable; as for `runs create`)", deps.collect)
    .option("--grid <setting=v1,v2>", "a setting the runs differ in and its values (repeatable: every combination is one group)", deps.collect)
    .option("--seeds <n|list>", "seeds per group: a count (from the config's data.seed on) or a comma list", "1")
    .option("--name <name>", "study name (default: the config file's or the preset's)")
    .option("--tag <tag>", "tag every run (repeatable)", deps.collect)
    .option("--dry-run", "print the request that would be sent, and send nothing")
    .option("--watch", "follow the study until every run has finished (exit 0 all succeeded, 2 one failed, 3 one was cancelled)")
    .addHelpText(
      "after",
      "\nExamples:\n  envace studies create --config base.json --grid rollout.paradigm=rehearse,environment --seeds 4\n  envace studies create --preset quickstart --grid rollout.paradigm=rehearse,environment,simulator --set rollout.simulator='{\"node\":\"embedded\",\"model\":\"tiny-gpt\"}' --set rollout.shadowExecution=false --seeds 2 --watch\n  envace studies create --config base.json --grid policy.model=Qwen/Qwen3-1.7B,Qwen/Qwen3-8B --seeds 0,1,2,3 --name scale",
    )
    .action(async (opts: { config?: string; preset?: string; set?: string[]; grid?: string[]; seeds: string; name?: string; tag?: string[]; dryRun?: boolean; watch?: boolean }, cmd: Command) => {
      const { config, name } = baseConfigOf(opts, deps.readJsonFile);
      const body = { name: opts.name ?? name, tags: opts.tag ?? [], config, grid: (opts.grid ?? []).map(parseGridArg), seeds: parseSeedsArg(opts.seeds) };
      if (opts.dryRun) return deps.printJson(body);
      const client = deps.clientFor(cmd);
      const study = await client.request<{ id: string; runs: { id: string; name: string }[] }>("POST", "/studies", body);
      if (deps.json(cmd) && !opts.watch) deps.printJson(study);
      else if (!deps.json(cmd)) {
        out(`Created study ${study.id} "${body.name}" with ${study.runs.length} runs:`);
        for (const r of study.runs) out(`  ${r.id}  ${r.name}`);
        out(`Follow it: envace studies watch ${study.id}`);
      }
      if (opts.watch) process.exitCode = await watchStudy(client, study.id, deps.json(cmd), deps.refreshMs);
    });

  studies
    .command("list")
    .description("list studies, newest first")
    .option("--limit <n>", "at most this many", "20")
    .action(async (opts: { limit: string }, cmd: Command) => {
      const page = await deps.clientFor(cmd).request<{ items: { id: string; name: string; grid: GridAxisArg[]; seeds: number[]; createdAt: string; runs: Record<string, number> }[] }>("GET", "/studies", undefined, { limit: opts.limit });
      if (deps.json(cmd)) return deps.printJson(page.items);
      if (!page.items.length) return out("No studies.");
      for (const s of page.items) {
        const grid = s.grid.map((a) => `${a.setting}×${a.values.length}`).join(" ") || "seeds only";
        const runs = Object.entries(s.runs).map(([k, n]) => `${n} ${k}`).join(", ");
        out(`${s.id}  ${s.createdAt.slice(0, 16).replace("T", " ")}  ${s.name}  [${grid}, ${s.seeds.length} seed(s)]  ${runs}`);
      }
    });

  studies
    .command("get")
    .description("a study: its groups and runs, and its per-benchmark table (mean ± std across seeds)")
    .argument("<id>", "study id")
    .option("--step <n|latest>", "the evaluated step the table shows", "latest")
    .action(async (id: string, opts: { step: string }, cmd: Command) => {
      if (opts.step !== "latest" && !/^\d+$/.test(opts.step)) throw new UsageError(`--step ${opts.step}: expected a step number or latest`);
      const client = deps.clientFor(cmd);
      const study = await client.request<Study>("GET", `/studies/${id}`);
      const table = await client.request<StudyTableView>("GET", `/studies/${id}/table`, undefined, { step: opts.step });
      if (deps.json(cmd)) return deps.printJson({ study, table });
      out(`${study.name} (${study.id}): ${study.grid.map((a) => `${a.setting} ∈ {${a.values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")}}`).join(" × ") || "seeds only"} × seeds ${study.seeds.join(", ")}`);
      out(studyProgress(study.runs));
      for (const g of study.groups) {
        out(`  ${g.label}`);
        for (const member of g.runs) {
          const r = study.runs.find((x) => x.id === member.id)!;
          out(`    seed ${String(member.seed).padEnd(4)} ${r.id}  ${r.status.padEnd(9)} ${r.progressStep}/${r.totalSteps}`);
        }
      }
      for (const line of tableLines(table)) out(line);
    });

  studies
    .command("watch")
    .description("follow a study until every run has finished; exits 0 all succeeded, 2 one failed, 3 one was cancelled")
    .argument("<id>", "study id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      process.exitCode = await watchStudy(deps.clientFor(cmd), id, deps.json(cmd), deps.refreshMs);
    });
}
