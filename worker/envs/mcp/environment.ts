/**
 * `mcp:<server>/<dataset id or name>`: the tasks of an imported dataset (CM2 rows or the task JSONL)
 * run against a registered MCP server (server/features/mcp-servers).
 *
 * - When the run opens, one discovery session lists the server's tools; the registered selection of
 *   them becomes every task's tool schemas (and the row's recorded tools and health are refreshed).
 * - Every episode that needs the real server (environment paradigm; rehearse with shadow execution)
 *   gets its own: a fresh process with a fresh scratch directory (stdio) or a fresh session (HTTP),
 *   started by the engine's `TaskInstance.environment` factory and closed after the rollout. The task's
 *   `setup` calls run first. At most `limits.maxSessions` run at once per server in this worker.
 * - Tool calls have the server's call timeout and message-size bound; results map to the tool message
 *   and its error flag (results.ts). A server that does not start, crashes, hangs, oversteps the bound
 *   or breaks the protocol ends the episode with `environment_error:<code>` (EnvironmentFailure).
 * - `close()` (the run ends, however it ends — cancel included) stops every session still open and
 *   refuses new ones, so no server outlives its run.
 */
import type { Prisma } from "@prisma/client";
import { parseMcpDatasetRef, type McpLimits } from "../../../contracts/mcp";
import { McpSessionError } from "../../../lib/mcp/errors";
import { openMcpSession, type McpLaunchSpec, type McpSession } from "../../../lib/mcp/session";
import { launchColumns, launchSpecOf, storedSettingsOf } from "../../../lib/mcp/store";
import type { SetupCall } from "../../../lib/tasks-jsonl";
import { EnvironmentFailure, type TaskInstance, type ToolEnvironment, type ToolOutcome } from "../../engine/types";
import { findImportedDataset, importedTasks } from "../dataset";
import type { EnvironmentKind } from "../environment";
import { toolJson, toolOutcomeOf } from "./results";
import { Slots } from "./slots";
import { selectTools, toolSchemaOf } from "./tools";

/** Concurrent sessions per server in this worker process (limits.maxSessions), shared by its runs. */
const slotsByServer = new Map<string, Slots>();
function slotsFor(serverId: string, size: number): Slots {
  let slots = slotsByServer.get(serverId);
  if (!slots || slots.size !== size) {
    slots = new Slots(size);
    slotsByServer.set(serverId, slots);
  }
  return slots;
}

function failureOf(e: unknown, fallback: string): EnvironmentFailure {
  if (e instanceof EnvironmentFailure) return e;
  if (e instanceof McpSessionError) return new EnvironmentFailure(e.code, e.message);
  return new EnvironmentFailure(fallback, e instanceof Error ? e.message : String(e));
}

/** Our own refusal of a call that never reaches the server (a tool outside the selection, arguments that are not an object). */
const refusal = (message: string): ToolOutcome => ({ content: toolJson({ error: message }), isError: true });

interface EpisodeDeps {
  server: string;
  spec: McpLaunchSpec;
  limits: McpLimits;
  /** Names the policy may call; null = whatever the server answers to. */
  allowed: Set<string> | null;
  slots: Slots;
  /** Close functions of the run's open episodes. */
  live: Set<() => Promise<void>>;
  isClosed: () => boolean;
  /** A signal for one episode, aborted when the run's environment closes; `done` when the episode is over. */
  episodeSignal: () => { signal: AbortSignal; done: () => void };
}

/** One episode's world: a fresh session, its setup calls made, released once. */
async function startEpisode(deps: EpisodeDeps, setup: SetupCall[]): Promise<ToolEnvironment> {
  if (deps.isClosed()) throw new EnvironmentFailure("START_FAILED", "the run's MCP environment is closed");
  const episode = deps.episodeSignal();
  let release: () => void;
  try {
    release = await deps.slots.acquire(episode.signal);
  } catch (e) {
    episode.done();
    throw e;
  }
  let session: McpSession;
  try {
    if (deps.isClosed()) throw new EnvironmentFailure("START_FAILED", "the run's MCP environment is closed");
    session = await openMcpSession(deps.spec, { limits: deps.limits, label: deps.server, signal: episode.signal });
  } catch (e) {
    release();
    episode.done();
    throw failureOf(e, "START_FAILED");
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    deps.live.delete(close);
    await session.close();
    release();
    episode.done();
  };
  deps.live.add(close);
  // The run closed while this session was starting: stop it now.
  if (deps.isClosed()) {
    await close();
    throw new EnvironmentFailure("START_FAILED", "the run's MCP environment is closed");
  }

  const call = async (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    let result;
    try {
      result = await session.call(name, args, episode.signal);
    } catch (e) {
      throw failureOf(e, "CRASHED");
    }
    try {
      return toolOutcomeOf(result);
    } catch (e) {
      throw new EnvironmentFailure("MALFORMED_RESULT", `tool ${name} returned a result that cannot be written as a tool message: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  try {
    for (const [i, s] of setup.entries()) {
      const out = await call(s.name, s.arguments).catch((e: unknown) => {
        throw new EnvironmentFailure("SETUP_FAILED", `setup call ${i + 1} (${s.name}) broke the server: ${e instanceof Error ? e.message : String(e)}`);
      });
      if (out.isError) throw new EnvironmentFailure("SETUP_FAILED", `setup call ${i + 1} (${s.name}) answered with an error: ${out.content.slice(0, 500)}`);
    }
  } catch (e) {
    await close();
    throw e;
  }

  return {
    async execute(name, argumentsJson) {
      if (deps.allowed && !deps.allowed.has(name)) return refusal(`Tool ${name} not found`);
      let args: unknown;
      try {
        args = JSON.parse(argumentsJson);
      } catch {
        return refusal(`the arguments of ${name} are not valid JSON`);
      }
      if (typeof args !== "object" || args === null || Array.isArray(args)) return refusal(`the arguments of ${name} must be a JSON object`);
      return call(name, args as Record<string, unknown>);
    },
    // An MCP server exposes no state to snapshot: state_equals checks are not offered for these tasks.
    snapshot: () => null,
    close,
  };
}

export const mcpEnvironments: EnvironmentKind = {
  prefix: "mcp:",
  forms: "mcp:<server>/<dataset id or name>",
  async open(ctx) {
    const { config, prisma, signal } = ctx;
    const ref = parseMcpDatasetRef(config.data.dataset);
    if (!ref) throw new Error(`data.dataset: ${config.data.dataset} is not of the form mcp:<server>/<dataset id or name>`);
    const row = await prisma.mcpServer.findUnique({ where: { name: ref.server }, select: { id: true, name: true, settings: true, ...launchColumns } });
    if (!row) throw new Error(`data.dataset: no MCP server named "${ref.server}" is registered (an admin registers one on the MCP servers page)`);
    const settings = storedSettingsOf(row.name, row.settings);
    const spec = launchSpecOf(row.name, row);
    const dataset = await findImportedDataset(prisma, ref.dataset);

    // Discovery: the server's tools as they are now.
    let discovered;
    try {
      const session = await openMcpSession(spec, { limits: settings.limits, label: row.name, listTools: true, signal });
      discovered = { tools: session.tools, serverInfo: session.serverInfo };
      await session.close();
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      await prisma.mcpServer.update({ where: { id: row.id }, data: { health: "unhealthy", healthDetail: message.slice(0, 2000), checkedAt: new Date() } }).catch(() => {});
      throw new Error(`MCP server ${row.name} could not be started to list its tools: ${message}`);
    }
    await prisma.mcpServer
      .update({
        where: { id: row.id },
        data: {
          tools: discovered.tools as unknown as Prisma.InputJsonValue,
          serverInfo: (discovered.serverInfo ?? undefined) as Prisma.InputJsonValue | undefined,
          health: "healthy",
          healthDetail: null,
          checkedAt: new Date(),
        },
      })
      .catch(() => {});
    const selected = selectTools(discovered.tools, settings.tools);
    if (!selected.ok) throw new Error(`MCP server ${row.name} no longer offers the selected tool(s) ${selected.missing.join(", ")}; update its tool selection`);
    if (selected.tools.length === 0) throw new Error(`MCP server ${row.name} lists no tools`);
    const toolSchemas = selected.tools.map(toolSchemaOf);
    const server = discovered.serverInfo ? ` (${discovered.serverInfo.name} ${discovered.serverInfo.version})` : "";
    ctx.info?.(`MCP server ${row.name}${server}: ${toolSchemas.length} tool(s) offered: ${toolSchemas.map((t) => t.function.name).join(", ")}`);

    let closed = false;
    const live = new Set<() => Promise<void>>();
    // One signal per episode, all aborted from here: starts, slot waits and calls listen on their own
    // episode's signal, so the run's signal carries one listener however many episodes are in flight
    // (Node warns past 10 listeners on one signal, and each would otherwise add its own).
    const episodes = new Set<AbortController>();
    let closedReason: unknown = null;
    const abortAll = (reason: unknown) => {
      closedReason ??= reason;
      for (const c of episodes) c.abort(reason);
    };
    const onAbort = () => abortAll(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const episodeSignal = () => {
      const c = new AbortController();
      if (closedReason !== null) c.abort(closedReason);
      else episodes.add(c);
      return { signal: c.signal, done: () => void episodes.delete(c) };
    };
    const deps: EpisodeDeps = {
      server: row.name,
      spec,
      limits: settings.limits,
      allowed: settings.tools.length ? new Set(settings.tools) : null,
      slots: slotsFor(row.id, settings.limits.maxSessions),
      live,
      isClosed: () => closed,
      episodeSignal,
    };
    const prepare = (instance: TaskInstance): TaskInstance => {
      const setup = (instance as TaskInstance & { setup?: SetupCall[] }).setup ?? [];
      return { ...instance, tools: toolSchemas, environment: { create: () => startEpisode(deps, setup) } };
    };
    const tasks = await importedTasks(ctx, dataset, prepare);
    return {
      ...tasks,
      async close() {
        closed = true;
        signal.removeEventListener("abort", onAbort);
        // Sessions still open (a cancelled step's rollouts) and those waiting for a slot end now.
        abortAll(new Error("the run's MCP environment is closed"));
        await Promise.all([...live].map((closeEpisode) => closeEpisode().catch(() => {})));
      },
    };
  },
};
