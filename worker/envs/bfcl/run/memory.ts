/**
 * BFCL memory categories (memory_kv, memory_rec_sum) as engine instances for evaluation runs, run as
 * upstream's harness runs them: before the questions of a scenario, the policy goes through the scenario's
 * prerequisite conversations in order (scripted user turns, the memory back end as its tools), each starting
 * from the memory the previous one left; every question then starts from the final memory, with the memory
 * shown in its system prompt, and is scored by upstream's agentic checker on its last reply that is not a
 * function call.
 *
 * One chain of prerequisite conversations runs per scenario and per trial (trialsPerTask repeats are
 * independent, as separate upstream runs would be), inside the first question's world creation
 * (WorldContext.runEpisode): the conversations are episodes of the same policy and settings, not scored and
 * not stored as trajectories; each question's outcome names how they ended and the memory they left.
 */
import type { BfclOutcome } from "../../../../lib/bfcl/outcome";
import type { ChatMessage, ToolSchema } from "../../../engine/io";
import { EnvironmentFailure, type EpisodeScore, type EpisodeScoreContext, type TaskInstance, type ToolEnvironment, type WorldContext } from "../../../engine/types";
import { BfclDataError } from "../data";
import { createScope, DEFAULT_MODEL_NAME } from "../world";
import { BfclInstanceSet, errorText, type CallTarget } from "../execute";
import { createMemoryBackend, MemoryPyError } from "../memory/backends";
import { MemoryVector, MissingEmbedding, type EmbeddingCache } from "../memory/vector";
import { EmbeddingCallError } from "../../../clients/embeddings";
import type { ChainBackend } from "../memory/chain";
import { ZeroDivisionError } from "../memory/bm25";
import { MemoryChain } from "../memory/chain";
import { backendClassOf, loadMemoryQuestions, loadPrereqConversation, type MemoryQuestion, type MemoryScenario, type PrereqEntry, type MemoryCategory } from "../memory/data";
import { loadMemoryPrompts, memorySystemPrompt, withMemoryPrompt, type MemoryPrompts } from "../memory/prompt";
import { PyDict, PyException, pyFromJsonText, type PyValue } from "../../../../lib/python/values";
import { MAXIMUM_STEP_LIMIT } from "../tools";
import { BFCL_DATA_SOURCE_PREFIX, callString } from "./multi-turn";
import { notScoredReason, shorten } from "../scoring/outcome";
import { functionDocTools, scoreAgenticEpisode } from "./agentic-episode";
import { Termination } from "../../../engine/machine";

type Backend = ChainBackend;

/** The memory back end's function documents (`multi_turn_func_doc/memory_kv.json`, `memory_rec_sum.json`) as OpenAI tools. */
export function memoryTools(category: MemoryCategory, dataDir?: string): ToolSchema[] {
  return functionDocTools(`data/multi_turn_func_doc/${category}.json`, dataDir);
}

/** A memory back end as a target of upstream's call-string executor (its Python exceptions as `PyException`). */
export function memoryCallTarget(backend: Backend): CallTarget {
  return {
    className: backend.className,
    methodNames: () => backend.methodNames(),
    hasMethod: (name) => backend.methodNames().includes(name),
    publicState: () => [],
    call(name, args, kwargs) {
      try {
        return backend.call(name, args, kwargs);
      } catch (err) {
        if (err instanceof MemoryPyError) throw new PyException(err.pyType, err.message);
        if (err instanceof ZeroDivisionError) throw new PyException("ZeroDivisionError", err.message);
        throw err;
      }
    },
  };
}

/**
 * The memory back end behind upstream's executor, as upstream's loop runs memory calls: each tool call
 * becomes `name(k=repr(v), …)` and is evaluated like a multi-turn call (a name that is not a method of the
 * back end is a NameError, exceptions become `Error during execution: …`).
 */
export function memoryExecutor(id: string, backend: Backend): { execute(name: string, argumentsJson: string): string } {
  const set = new BfclInstanceSet({ id, involvedClasses: [], initialConfig: new PyDict(), longContext: false }, DEFAULT_MODEL_NAME, createScope(), [memoryCallTarget(backend)]);
  return {
    execute(name, argumentsJson) {
      const c = callString(name, argumentsJson);
      return "call" in c ? set.executeOne(c.call) : errorText(c.error);
    },
  };
}

/** The texts a memory_vector call needs embedded before it runs (its string arguments and the stored texts). */
function textsFor(backend: MemoryVector, argumentsJson: string): string[] {
  let args: PyValue[] = [];
  try {
    const parsed = pyFromJsonText(argumentsJson);
    if (parsed instanceof PyDict) args = parsed.values();
  } catch {
    // not JSON: the executor answers with the error, nothing to embed
  }
  return backend.textsToEmbed(args);
}

function memoryWorld(id: string, backend: Backend, messages: ChatMessage[], onClose?: () => void, embeddings?: EmbeddingCache): ToolEnvironment {
  const executor = memoryExecutor(id, backend);
  return {
    messages,
    async execute(name, argumentsJson) {
      if (!(backend instanceof MemoryVector)) return executor.execute(name, argumentsJson);
      if (!embeddings) throw new Error("memory_vector needs an embedding node (bfcl.embeddings)");
      const ensure = async (texts: string[]) => {
        try {
          await embeddings.ensure(texts);
        } catch (err) {
          // The embedding node failed, not the policy: the episode is an environment error, left out of the scores.
          if (err instanceof EmbeddingCallError) throw new EnvironmentFailure("EMBEDDINGS_FAILED", err.message);
          throw err;
        }
      };
      await ensure(textsFor(backend, argumentsJson));
      // Upstream's call-string rewriting may change a text argument: fetch what the call actually embeds, then run it again.
      for (let attempt = 0; ; attempt++) {
        try {
          return executor.execute(name, argumentsJson);
        } catch (err) {
          if (!(err instanceof MissingEmbedding) || attempt >= 100) throw err;
          await ensure([err.text]);
        }
      }
    },
    snapshot: () => backend.snapshot(),
    close: onClose,
  };
}

const asChat = (messages: readonly { role: string; content: string }[]): ChatMessage[] =>
  messages.map((m) => {
    if (m.role !== "system" && m.role !== "user") throw new BfclDataError(`memory entry message role "${m.role}" (expected system or user)`);
    return { role: m.role, content: m.content };
  });

interface PrereqRecord {
  id: string;
  termination: string;
}

/** Shared by the instances of one category in one run: prompts, tools, and the prerequisite chains per trial. */
class MemoryRun {
  readonly prompts: MemoryPrompts;
  readonly tools: ToolSchema[];
  private readonly chains = new Map<number, MemoryChain>();
  private readonly prereqRuns = new Map<string, Promise<PrereqRecord[]>>();
  private readonly prereqs = new Map<MemoryScenario, PrereqEntry[]>();

  constructor(
    readonly category: MemoryCategory,
    readonly dataDir?: string,
    /** memory_vector's embeddings (the run's bfcl.embeddings node). */
    readonly embeddings?: EmbeddingCache,
  ) {
    if (category === "memory_vector" && !embeddings) throw new Error("BFCL memory_vector needs an embedding node: set bfcl.embeddings {node, model}");
    this.prompts = loadMemoryPrompts(dataDir);
    this.tools = memoryTools(category, dataDir);
  }

  prereqEntries(scenario: MemoryScenario): PrereqEntry[] {
    let entries = this.prereqs.get(scenario);
    if (!entries) this.prereqs.set(scenario, (entries = loadPrereqConversation(this.category, scenario, this.dataDir)));
    return entries;
  }

  chain(trial: number): MemoryChain {
    let chain = this.chains.get(trial);
    if (!chain) this.chains.set(trial, (chain = new MemoryChain(this.category, () => this.freshBackend())));
    return chain;
  }

  freshBackend(): Backend {
    return this.category === "memory_vector" ? new MemoryVector(this.embeddings!) : createMemoryBackend(backendClassOf(this.category));
  }

  systemPrompt(scenario: MemoryScenario, backend: Backend): string {
    return memorySystemPrompt(this.prompts, this.category, scenario, backend);
  }

  /** A prerequisite conversation as a nested episode: its world starts from the chain and hands its memory back when closed. */
  prereqInstance(entry: PrereqEntry, chain: MemoryChain): TaskInstance {
    const first = asChat(entry.turns[0] ?? []);
    return {
      id: entry.id,
      dataSource: `${BFCL_DATA_SOURCE_PREFIX}${this.category}_prereq`,
      messages: first,
      tools: this.tools,
      followUpUserMessages: entry.turns.slice(1).map((turn, i) => {
        if (turn.length !== 1) throw new BfclDataError(`${entry.id}: turn ${i + 1} has ${turn.length} messages; a prerequisite turn has one user message`);
        return turn[0].content;
      }),
      checklists: [],
      maxActsPerUserTurn: MAXIMUM_STEP_LIMIT,
      environment: {
        create: () => {
          const backend = chain.forPrereq(entry.id, entry.scenario);
          const messages = asChat(withMemoryPrompt(this.prompts, entry.turns[0] ?? [], false, this.systemPrompt(entry.scenario, backend)));
          return memoryWorld(entry.id, backend, messages, () => chain.finishPrereq(entry.scenario, backend), this.embeddings);
        },
      },
      // Prerequisite conversations are not scored (upstream leaves them out of every score).
      scoreEpisode: () => ({ reward: 0, verdicts: [] }),
    };
  }

  /** How the trial's prerequisite conversations of the question's scenario ended and the memory they left (when they ran). */
  async prerequisiteSummary(trial: number, q: MemoryQuestion): Promise<BfclOutcome["prerequisites"]> {
    const run = this.prereqRuns.get(`${trial}:${q.scenario}`);
    if (!run) return undefined;
    const entries = await run;
    return { entries, memory: shorten(this.chain(trial).forQuestion(q.id, q.scenario).contextText(), 4000) };
  }

  /** Runs the scenario's prerequisite conversations once per trial (later callers wait for the same run). */
  prerequisites(world: WorldContext, scenario: MemoryScenario): Promise<PrereqRecord[]> {
    const key = `${world.rolloutIndex}:${scenario}`;
    let run = this.prereqRuns.get(key);
    if (!run) {
      const chain = this.chain(world.rolloutIndex);
      run = (async () => {
        const out: PrereqRecord[] = [];
        for (const entry of this.prereqEntries(scenario)) {
          const episode = await world.runEpisode(this.prereqInstance(entry, chain), `prereq:${entry.id}`);
          out.push({ id: entry.id, termination: episode.terminationReason });
        }
        return out;
      })();
      this.prereqRuns.set(key, run);
    }
    return run;
  }
}

/** One question: the final prerequisite memory, the memory prompt, then the agentic checker. */
function questionInstance(run: MemoryRun, q: MemoryQuestion): TaskInstance {
  const opening = (backend: Backend) => asChat(withMemoryPrompt(run.prompts, q.question[0], true, run.systemPrompt(q.scenario, backend)));
  return {
    id: q.id,
    dataSource: `${BFCL_DATA_SOURCE_PREFIX}${run.category}`,
    // Without a world (e.g. a rehearsed attempt) the prompt shows an empty memory.
    messages: opening(run.freshBackend()),
    tools: run.tools,
    followUpUserMessages: q.question.slice(1).map((turn) => turn.map((m) => m.content).join("\n")),
    checklists: [],
    maxActsPerUserTurn: MAXIMUM_STEP_LIMIT,
    environment: {
      async create(world?: WorldContext) {
        if (!world) throw new Error(`${q.id}: a BFCL memory question needs its prerequisite conversations run first (no rollout context)`);
        await run.prerequisites(world, q.scenario);
        const backend = run.chain(world.rolloutIndex).forQuestion(q.id, q.scenario);
        return memoryWorld(q.id, backend, opening(backend), undefined, run.embeddings);
      },
    },
    scoreEpisode: async (ctx) => scoreMemoryQuestion(run.category, q, ctx, await run.prerequisiteSummary(ctx.rolloutIndex ?? 0, q)),
  };
}

export function scoreMemoryQuestion(category: MemoryCategory, q: MemoryQuestion, ctx: EpisodeScoreContext, prerequisites?: BfclOutcome["prerequisites"]): EpisodeScore {
  const base = { category, taskId: q.id, termination: ctx.terminationReason, ...(prerequisites ? { prerequisites } : {}) };
  const failedPrereq = prerequisites?.entries.find((e) => e.termination === Termination.generationFailed);
  const unscored = notScoredReason(ctx) ?? (failedPrereq ? `the prerequisite conversation ${failedPrereq.id} could not be run (the policy node failed to generate)` : null);
  return scoreAgenticEpisode(base, q.answers, ctx, unscored);
}

/** Every question of a memory category (their prerequisite conversations run when the first one starts). */
export function memoryInstances(category: MemoryCategory, dataDir?: string, embeddings?: EmbeddingCache): TaskInstance[] {
  const run = new MemoryRun(category, dataDir, embeddings);
  const questions = loadMemoryQuestions(category, dataDir);
  for (const scenario of new Set(questions.map((q) => q.scenario))) run.prereqEntries(scenario);
  return questions.map((q) => questionInstance(run, q));
}
