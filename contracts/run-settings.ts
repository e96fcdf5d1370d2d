/**
 * Every run setting explained, from ONE source: the run-config zod schema (contracts/run-config/)
 * gives each field its type, limits, default and one-line help (`.describe()`); the map below adds
 * what a schema cannot say — a label in words, the unit, and whether the form tucks it under
 * "Advanced". The new-run form, the API reference (OpenAPI RunConfigInput) and `envace runs settings`
 * all read `runSettings()`. run-settings.test.ts fails when a field lacks a label or a description.
 */
import { z } from "zod";
import { nearestNames } from "../lib/nearest";
import { runConfigSchema } from "./run-config";

export interface SettingMeta {
  /** The setting in words, e.g. "Learning rate". */
  label: string;
  /** Unit of the value where it has one: "tokens", "s", "steps", … */
  unit?: string;
  /** Shown under the section's collapsed "Advanced" part. */
  advanced?: boolean;
}

/** Sections of the form: the config's top-level keys, in the order shown. */
export const runSettingSections: { key: string; label: string; keys: string[]; collapsed?: boolean }[] = [
  { key: "run", label: "Run", keys: ["kind"] },
  { key: "policy", label: "Policy and node", keys: ["policy"] },
  { key: "data", label: "Data", keys: ["data"] },
  { key: "rollout", label: "Rollout paradigm and shadow execution", keys: ["rollout"] },
  { key: "reward", label: "Reward and judge", keys: ["reward"] },
  { key: "optim", label: "Optimisation", keys: ["optim"] },
  { key: "schedule", label: "Schedule", keys: ["schedule"] },
  { key: "eval", label: "Evaluation", keys: ["trialsPerTask", "repeats", "fidelityProbe", "testTime"] },
  { key: "benchmarks", label: "Benchmark services", keys: ["finmcp", "bfcl"], collapsed: true },
  { key: "sampling", label: "Sampling per role", keys: ["sampling"], collapsed: true },
];

/**
 * Labels, units and "advanced" flags by dotted path. Leaves need an entry; so do nested groups below a
 * section (e.g. `sampling.act`), whose label prefixes their fields' labels in the form.
 */
export const runSettingMeta: Record<string, SettingMeta> = {
  kind: { label: "Run kind" },

  "policy.node": { label: "Policy node" },
  "policy.model": { label: "Policy model" },
  "policy.loraRank": { label: "LoRA rank", advanced: true },
  "policy.checkpoint": { label: "Checkpoint" },
  "policy.checkpoint.run": { label: "Training run" },
  "policy.checkpoint.step": { label: "Step", unit: "step" },

  "data.dataset": { label: "Dataset" },

  "bfcl.search": { label: "Search node (web search)" },
  "bfcl.search.node": { label: "Node" },
  "bfcl.embeddings": { label: "Embedding node (memory_vector)" },
  "bfcl.embeddings.node": { label: "Node" },
  "bfcl.embeddings.model": { label: "Embedding model" },
  "data.split": { label: "Split" },
  "data.instanceIds": { label: "Task ids", advanced: true },
  "data.poolSize": { label: "Task pool size", unit: "tasks" },
  "data.instancesPerStep": { label: "Tasks per step", unit: "tasks" },
  "data.rolloutsPerInstance": { label: "Rollouts per task", unit: "rollouts" },
  "data.seed": { label: "Sampling seed", advanced: true },

  "rollout.paradigm": { label: "Paradigm" },
  "rollout.shadowExecution": { label: "Shadow execution" },
  "rollout.simulator": { label: "Tool simulator" },
  "rollout.simulator.node": { label: "Node" },
  "rollout.simulator.model": { label: "Model" },
  "rollout.userSimulator": { label: "User simulator" },
  "rollout.userSimulator.node": { label: "Node" },
  "rollout.userSimulator.model": { label: "Model" },
  "rollout.maxAssistantTurns": { label: "Max assistant turns", unit: "turns", advanced: true },
  "rollout.maxUserTurns": { label: "Max user turns", unit: "turns", advanced: true },
  "rollout.maxMicroSteps": { label: "Max micro-steps", unit: "micro-steps", advanced: true },
  "rollout.promptBudgetTokens": { label: "Prompt budget", unit: "tokens", advanced: true },
  "rollout.responseBudgetTokens": { label: "Tool response budget", unit: "tokens", advanced: true },
  "rollout.maxConcurrentRollouts": { label: "Concurrent rollouts", unit: "rollouts", advanced: true },
  "rollout.maxFailedGenerationShare": { label: "Failed generations allowed", unit: "share of a step's generations", advanced: true },
  "rollout.maxEnvironmentErrorShare": { label: "Errored episodes allowed", unit: "share of a step's episodes", advanced: true },

  "sampling.act": { label: "Act (training)" },
  "sampling.act.temperature": { label: "Temperature" },
  "sampling.act.topP": { label: "Top-p" },
  "sampling.act.maxTokens": { label: "Max tokens", unit: "tokens" },
  "sampling.rehearse": { label: "Rehearse (training)" },
  "sampling.rehearse.temperature": { label: "Temperature" },
  "sampling.rehearse.topP": { label: "Top-p" },
  "sampling.rehearse.maxTokens": { label: "Max tokens", unit: "tokens" },
  "sampling.evalAct": { label: "Act (evaluation)" },
  "sampling.evalAct.temperature": { label: "Temperature" },
  "sampling.evalAct.topP": { label: "Top-p" },
  "sampling.evalAct.maxTokens": { label: "Max tokens", unit: "tokens" },
  "sampling.evalRehearse": { label: "Rehearse (evaluation)" },
  "sampling.evalRehearse.temperature": { label: "Temperature" },
  "sampling.evalRehearse.topP": { label: "Top-p" },
  "sampling.evalRehearse.maxTokens": { label: "Max tokens", unit: "tokens" },

  "reward.judge": { label: "Checklist judge" },
  "reward.judge.node": { label: "Node" },
  "reward.judge.model": { label: "Model" },
  "reward.judgeConcurrency": { label: "Judge concurrency", unit: "calls", advanced: true },
  "reward.judgeTimeoutS": { label: "Judge timeout", unit: "s", advanced: true },
  "reward.judgeRetries": { label: "Judge attempts", unit: "attempts", advanced: true },
  "reward.judgeTemperature": { label: "Judge temperature", advanced: true },
  "reward.judgeTopP": { label: "Judge top-p", advanced: true },
  "reward.judgeMaxTokens": { label: "Judge max tokens", unit: "tokens", advanced: true },
  "reward.invalidActionPenalty": { label: "Invalid-action penalty", unit: "reward", advanced: true },
  "reward.maxChecklists": { label: "Checklists per task", unit: "checklists", advanced: true },
  "reward.rehearsalGrounding": { label: "Rehearsal grounding weight" },

  "optim.lr": { label: "Learning rate" },
  "optim.roleWiseBaseline": { label: "Role-wise baseline" },
  "optim.normAdvByStd": { label: "Normalise advantages by std", advanced: true },
  "optim.clipLow": { label: "Clip ε (low)", advanced: true },
  "optim.clipHigh": { label: "Clip ε (high)", advanced: true },
  "optim.dualClip": { label: "Dual-clip bound", advanced: true },
  "optim.useKl": { label: "KL penalty", advanced: true },
  "optim.klCoef": { label: "KL coefficient", advanced: true },
  "optim.klType": { label: "KL estimator", advanced: true },
  "optim.entropyCoef": { label: "Entropy coefficient", advanced: true },
  "optim.lossAgg": { label: "Loss aggregation", advanced: true },
  "optim.recomputeLogprobs": { label: "Recompute log-probs", advanced: true },
  "optim.weightDecay": { label: "Weight decay", advanced: true },
  "optim.gradClip": { label: "Gradient clip", unit: "global norm", advanced: true },
  "optim.beta1": { label: "Adam β1", advanced: true },
  "optim.beta2": { label: "Adam β2", advanced: true },

  "schedule.steps": { label: "Training steps", unit: "steps" },
  "schedule.saveEvery": { label: "Checkpoint every", unit: "steps" },
  "schedule.evalEvery": { label: "Evaluate every", unit: "steps" },
  "schedule.stateEvery": { label: "Save the training state every", unit: "steps", advanced: true },
  "schedule.evalOwnSplit": { label: "Evaluate on the dataset's own split" },
  "schedule.evalSuites": { label: "Evaluation suites" },
  // The fields of one suite (an "object-list" setting's items).
  "schedule.evalSuites.name": { label: "Suite name" },
  "schedule.evalSuites.dataset": { label: "Benchmark" },
  "schedule.evalSuites.split": { label: "Split" },
  "schedule.evalSuites.instanceIds": { label: "Task ids" },
  "schedule.evalSuites.limit": { label: "Task sample", unit: "tasks" },
  "schedule.evalSuites.repeats": { label: "Trials per task", unit: "trials" },
  "schedule.evalSuites.paradigm": { label: "Paradigm" },
  "schedule.evalSuites.userSimulator": { label: "User simulator" },
  "schedule.evalSuites.userSimulator.node": { label: "Node" },
  "schedule.evalSuites.userSimulator.model": { label: "Model" },
  "schedule.evalSuites.judge": { label: "Checklist judge" },
  "schedule.evalSuites.judge.node": { label: "Node" },
  "schedule.evalSuites.judge.model": { label: "Model" },

  trialsPerTask: { label: "Trials per task", unit: "trials" },
  repeats: { label: "Independent passes", unit: "passes" },
  "finmcp.environment": { label: "FinMCP tools answered by" },
  "finmcp.folder": { label: "FinMCP data folder", advanced: true },
  "finmcp.toolSchema": { label: "FinMCP tool schema file", advanced: true },
  "finmcp.maxToolCalls": { label: "Calls per turn (max_tool_num)", unit: "calls", advanced: true },
  "finmcp.mcpAttempts": { label: "MCP attempts per call", unit: "attempts", advanced: true },
  "finmcp.mcpCallTimeoutS": { label: "MCP call time limit", unit: "s", advanced: true },
  fidelityProbe: { label: "Fidelity probe" },
  "testTime.enabled": { label: "Test-time rehearsal" },
  "testTime.attempts": { label: "Rehearsal attempts", unit: "attempts", advanced: true },
  "testTime.mode": { label: "Rehearsal mode", advanced: true },
  "testTime.transcriptTokens": { label: "Transcript budget", unit: "tokens", advanced: true },
  "testTime.thinkingTokens": { label: "Thinking kept per message", unit: "tokens", advanced: true },
  "testTime.sampling.act": { label: "Test-time act" },
  "testTime.sampling.act.temperature": { label: "Temperature", advanced: true },
  "testTime.sampling.act.topP": { label: "Top-p", advanced: true },
  "testTime.sampling.act.maxTokens": { label: "Max tokens", unit: "tokens", advanced: true },
  "testTime.sampling.rehearse": { label: "Test-time rehearse" },
  "testTime.sampling.rehearse.temperature": { label: "Temperature", advanced: true },
  "testTime.sampling.rehearse.topP": { label: "Top-p", advanced: true },
  "testTime.sampling.rehearse.maxTokens": { label: "Max tokens", unit: "tokens", advanced: true },
  "testTime.sampling.assessment": { label: "Test-time assessment" },
  "testTime.sampling.assessment.temperature": { label: "Temperature", advanced: true },
  "testTime.sampling.assessment.topP": { label: "Top-p", advanced: true },
  "testTime.sampling.assessment.maxTokens": { label: "Max tokens", unit: "tokens", advanced: true },
  "testTime.sampling.memory": { label: "Test-time memory" },
  "testTime.sampling.memory.temperature": { label: "Temperature", advanced: true },
  "testTime.sampling.memory.topP": { label: "Top-p", advanced: true },
  "testTime.sampling.memory.maxTokens": { label: "Max tokens", unit: "tokens", advanced: true },
};

export type SettingKind =
  | { kind: "number"; integer: boolean; min?: number; max?: number; exclusiveMin?: boolean; exclusiveMax?: boolean }
  | { kind: "boolean" }
  | { kind: "enum"; options: string[] }
  | { kind: "string" }
  | { kind: "string-list" }
  /** A list of objects (schedule.evalSuites): each item has these fields, keyed below the list's key. */
  | { kind: "object-list"; fields: RunSetting[] }
  /** A number, or one of a few words (policy.checkpoint.step: a step or "latest"). */
  | { kind: "number-or"; integer: boolean; min?: number; max?: number; words: string[] };

export type RunSetting = SettingKind & {
  path: string[];
  /** Dotted path, as `--set` and error messages name it. */
  key: string;
  label: string;
  /** The group label for nested settings ("Act (training)" for sampling.act.temperature), else null. */
  group: string | null;
  /** One line of help: the schema's description (a nested setting's group description first). */
  description: string;
  unit: string | null;
  advanced: boolean;
  section: string;
  /** May be left unset (no default applies). */
  optional: boolean;
  /** The schema's default (undefined: none, the setting is unset unless given). */
  default: unknown;
};

interface Unwrapped {
  inner: z.ZodTypeAny;
  optional: boolean;
  /** The outermost `.describe()` text on the way in. */
  description: string | undefined;
}

function unwrap(t: z.ZodTypeAny): Unwrapped {
  let optional = false;
  let description: string | undefined;
  let cur = t;
  for (;;) {
    description ??= cur.description;
    if (cur instanceof z.ZodDefault) cur = cur._def.innerType;
    else if (cur instanceof z.ZodOptional || cur instanceof z.ZodNullable) {
      optional = true;
      cur = cur._def.innerType;
    } else if (cur instanceof z.ZodEffects) cur = cur._def.schema;
    else break;
  }
  description ??= cur.description;
  return { inner: cur, optional, description };
}

function kindOf(inner: z.ZodTypeAny, key: string, meta: Record<string, SettingMeta>): SettingKind | null {
  if (inner instanceof z.ZodNumber) {
    const checks = inner._def.checks as { kind: string; value?: number; inclusive?: boolean }[];
    const min = checks.find((c) => c.kind === "min");
    const max = checks.find((c) => c.kind === "max");
    return {
      kind: "number",
      integer: checks.some((c) => c.kind === "int"),
      min: min?.value,
      max: max?.value,
      exclusiveMin: min ? min.inclusive === false : undefined,
      exclusiveMax: max ? max.inclusive === false : undefined,
    };
  }
  if (inner instanceof z.ZodBoolean) return { kind: "boolean" };
  if (inner instanceof z.ZodEnum) return { kind: "enum", options: [...(inner.options as string[])] };
  if (inner instanceof z.ZodString) return { kind: "string" };
  if (inner instanceof z.ZodArray) {
    const item = unwrap(inner.element as z.ZodTypeAny).inner;
    if (!(item instanceof z.ZodObject)) return { kind: "string-list" };
    // The items' fields, described like settings, with paths and keys relative to one item.
    const prefix = `${key}.`;
    const itemMeta = Object.fromEntries(Object.entries(meta).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
    const fields = runSettings(item, itemMeta, 1).map((f) => ({ ...f, section: "" }));
    return { kind: "object-list", fields };
  }
  if (inner instanceof z.ZodUnion) {
    const options = inner._def.options as z.ZodTypeAny[];
    const num = options.find((o) => o instanceof z.ZodNumber);
    const words = options.filter((o): o is z.ZodLiteral<string> => o instanceof z.ZodLiteral && typeof o._def.value === "string").map((o) => o._def.value);
    const numKind = num ? kindOf(num, key, meta) : null;
    if (numKind?.kind === "number" && words.length === options.length - 1) return { kind: "number-or", integer: numKind.integer, min: numKind.min, max: numKind.max, words };
  }
  return null;
}

/** The config's own defaults: the object schema (without cross-field checks) parsed from {}. */
function defaultsOf(schema: z.ZodTypeAny): unknown {
  const { inner } = unwrap(schema);
  const whole = inner.safeParse({});
  if (whole.success) return whole.data;
  // An object with required fields (an evaluation suite's name): each field's own default, where it has one.
  if (!(inner instanceof z.ZodObject)) return undefined;
  return Object.fromEntries(
    Object.entries(inner.shape as Record<string, z.ZodTypeAny>).map(([k, v]) => {
      const own = v.safeParse(undefined);
      return [k, own.success ? own.data : undefined];
    }),
  );
}

function getAt(obj: unknown, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function sectionOf(topKey: string): string {
  return runSettingSections.find((s) => s.keys.includes(topKey))?.key ?? topKey;
}

/** Every leaf setting of the run config with its label, help, unit, default and input kind, in schema order. */
export function runSettings(schema: z.ZodTypeAny = runConfigSchema, meta: Record<string, SettingMeta> = runSettingMeta, groupDepth = 2): RunSetting[] {
  const defaults = defaultsOf(schema);
  const out: RunSetting[] = [];
  const walk = (t: z.ZodTypeAny, path: string[], parentOptional: boolean, groupPath: string[] | null, groupHelp: string | undefined) => {
    const { inner, optional: own, description } = unwrap(t);
    const optional = own || parentOptional;
    if (inner instanceof z.ZodObject) {
      // A nested object below a section (sampling.act, reward.judge) is a group: its label and help
      // introduce its fields.
      const isGroup = path.length >= groupDepth;
      for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodTypeAny>)) {
        walk(v, [...path, k], optional, isGroup ? path : groupPath, isGroup ? description : groupHelp);
      }
      return;
    }
    if (inner instanceof z.ZodLiteral) return; // schemaVersion: fixed, not a setting
    const key = path.join(".");
    const kind = kindOf(inner, key, meta);
    if (!kind) return;
    const m = meta[key];
    const group = groupPath ? (meta[groupPath.join(".")]?.label ?? null) : null;
    const help = [groupHelp, description].filter((d): d is string => Boolean(d)).join(": ");
    out.push({
      ...kind,
      path,
      key,
      label: m?.label ?? "",
      group,
      description: help,
      unit: m?.unit ?? null,
      advanced: m?.advanced ?? false,
      section: sectionOf(path[0]!),
      optional,
      default: getAt(defaults, path),
    });
  };
  const { inner } = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodTypeAny>)) walk(v, [k], false, null, undefined);
  }
  return out;
}

/** A key of a config input that the schema does not know: where it is and the nearest known key beside it. */
export interface UnknownSetting {
  /** Dotted path of the key, e.g. "schedule.evalEvry". */
  path: string;
  /** The closest known key at the same level ("schedule.evalEvery"), when one is near. */
  suggestion: string | null;
}

/**
 * Keys of `input` that the run-config schema does not know, at any depth. zod drops them silently when
 * it parses (which is right for a stored config read back after a setting was removed), so a NEW launch
 * checks them here first (lib/launch-check). Values of the wrong type are left to the schema.
 */
export function unknownSettings(input: unknown, schema: z.ZodTypeAny = runConfigSchema): UnknownSetting[] {
  const out: UnknownSetting[] = [];
  const walk = (value: unknown, t: z.ZodTypeAny, path: string[]) => {
    const { inner } = unwrap(t);
    if (inner instanceof z.ZodObject) {
      if (!value || typeof value !== "object" || Array.isArray(value)) return;
      const shape = inner.shape as Record<string, z.ZodTypeAny>;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (Object.hasOwn(shape, k)) walk(v, shape[k]!, [...path, k]);
        else {
          const near = nearestNames(k, Object.keys(shape), 1)[0];
          out.push({ path: [...path, k].join("."), suggestion: near ? [...path, near].join(".") : null });
        }
      }
    } else if (inner instanceof z.ZodArray && Array.isArray(value)) {
      value.forEach((v, i) => walk(v, inner.element as z.ZodTypeAny, [...path, String(i)]));
    }
  };
  walk(input, schema, []);
  return out;
}

/** The field message for an unknown setting: "unknown setting (did you mean schedule.evalEvery?)". */
export function unknownSettingMessage(u: UnknownSetting): string {
  return `unknown setting${u.suggestion ? ` (did you mean ${u.suggestion}?)` : ""}`;
}

/**
 * A copy of a config without the keys the schema no longer knows, and their paths: cloning an older
 * run leaves out settings that were removed since, and says which (the launch would refuse them).
 */
export function withoutUnknownSettings(input: unknown, schema: z.ZodTypeAny = runConfigSchema): { config: unknown; dropped: string[] } {
  const unknown = unknownSettings(input, schema);
  if (unknown.length === 0) return { config: input, dropped: [] };
  const config = structuredClone(input) as Record<string, unknown>;
  for (const u of unknown) {
    const keys = u.path.split(".");
    let cur: unknown = config;
    for (const k of keys.slice(0, -1)) cur = (cur as Record<string, unknown>)[k];
    delete (cur as Record<string, unknown>)[keys[keys.length - 1]!];
  }
  return { config, dropped: unknown.map((u) => u.path) };
}

/** Settings without a label, a description or a group label: what run-settings.test.ts reports. */
export function incompleteSettings(settings: RunSetting[] = runSettings()): string[] {
  const problems: string[] = [];
  for (const s of settings) {
    if (s.kind === "object-list") problems.push(...incompleteSettings(s.fields).map((p) => `${s.key}.${p}`));
    if (!s.label) problems.push(`${s.key}: no label in runSettingMeta (contracts/run-settings.ts)`);
    if (!s.description) problems.push(`${s.key}: no .describe() text in contracts/run-config/`);
    if (s.path.length > 2 && !s.group) problems.push(`${s.path.slice(0, -1).join(".")}: no group label in runSettingMeta`);
  }
  return [...new Set(problems)];
}

/** A default for people: numbers as written, booleans on/off, lists comma-separated, unset as "unset". */
export function formatSettingValue(value: unknown): string {
  if (value === undefined || value === null) return "unset";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none";
  if (typeof value === "number") return String(value);
  return String(value);
}

/** "Learning rate" / "Act (training) · Temperature": the label as a form or a table shows it. */
export function settingTitle(s: Pick<RunSetting, "label" | "group">): string {
  return s.group ? `${s.group} · ${s.label}` : s.label;
}

/**
 * Add labels (JSON Schema `title`), units (`x-unit`) and the `.describe()` help to a JSON schema rendered
 * from the run config (the OpenAPI document's RunConfig / RunConfigInput), walking `properties` by path
 * beside the zod schema. The help is copied here because a renderer sees `.describe()` texts only when
 * it was loaded before the schema was built.
 */
export function annotateRunConfigSchema<T extends Record<string, unknown>>(
  jsonSchema: T,
  schema: z.ZodTypeAny = runConfigSchema,
  meta: Record<string, SettingMeta> = runSettingMeta,
): T {
  const visit = (node: Record<string, unknown>, zodNode: z.ZodTypeAny | undefined, path: string[]) => {
    const m = meta[path.join(".")];
    const unwrapped = zodNode ? unwrap(zodNode) : undefined;
    if (path.length && unwrapped?.description && !node.description) node.description = unwrapped.description;
    if (m && path.length) {
      node.title = m.label;
      if (m.unit) node["x-unit"] = m.unit;
    }
    const shape = unwrapped?.inner instanceof z.ZodObject ? (unwrapped.inner.shape as Record<string, z.ZodTypeAny>) : {};
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    if (props) for (const [k, v] of Object.entries(props)) visit(v, shape[k], [...path, k]);
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      const list = node[key] as Record<string, unknown>[] | undefined;
      if (Array.isArray(list)) list.forEach((v) => visit(v, zodNode, path));
    }
  };
  const copy = structuredClone(jsonSchema);
  visit(copy, schema, []);
  return copy;
}
