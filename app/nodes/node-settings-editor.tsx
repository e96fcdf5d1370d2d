"use client";
/**
 * Editing a node's settings (contracts/node-settings.ts): per-model rendering, the Tinker and the
 * OpenAI sections. Labels' help texts come from the schema's descriptions; the draft is validated with
 * the same schema the API uses, and errors (the form's own or the server's) show on their field.
 */
import { z } from "zod";
import {
  loraNodeSettingsSchema,
  modelRenderSettingsSchema,
  nodeSettingsSchema,
  openAINodeSettingsSchema,
  rendererNames,
  tinkerServerProfiles,
  type NodeSettings,
} from "../../contracts/node-settings";

type Kind = "embedded" | "openai" | "tinker";

export interface ModelDraft {
  name: string;
  renderer: string;
  tokenizer: string;
  /** "" = the template's default. */
  enableThinking: "" | "on" | "off";
  contextLength: string;
}

export interface SettingsDraft {
  models: ModelDraft[];
  tinker: { server: string; futureDeadlineS: string; maxLoraRank: string; wire: string };
  openai: {
    extraBody: string;
    requestTimeoutS: string;
    minDecodeTokensPerS: string;
    stream: boolean;
    maxConcurrency: string;
    maxRetries: string;
    maxRetryWaitS: string;
  };
  /** OpenAI nodes: where exported LoRA adapters go ("" = unset). */
  lora: { adapterDir: string; serverAdapterDir: string };
  /** Settings the editor does not show, carried through unchanged (restarts). */
  kept: Pick<NodeSettings, "restarts">;
}

export type SettingsErrors = Record<string, string>;

const tinkerShape = (nodeSettingsSchema.shape.tinker._def.innerType as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
const openaiShape = openAINodeSettingsSchema.shape as Record<string, z.ZodTypeAny>;
const modelShape = modelRenderSettingsSchema.shape as Record<string, z.ZodTypeAny>;
const loraShape = loraNodeSettingsSchema.shape as Record<string, z.ZodTypeAny>;
const help = (t: z.ZodTypeAny | undefined) => t?.description ?? "";

/** Stored settings → an editable draft. */
export function draftOf(value: unknown): SettingsDraft {
  const parsed = nodeSettingsSchema.safeParse(value ?? {});
  const s: NodeSettings = parsed.success ? parsed.data : nodeSettingsSchema.parse({});
  return {
    models: Object.entries(s.models).map(([name, m]) => ({
      name,
      renderer: m.renderer,
      tokenizer: m.tokenizer ?? "",
      enableThinking: m.enableThinking === undefined ? "" : m.enableThinking ? "on" : "off",
      contextLength: m.contextLength === undefined ? "" : String(m.contextLength),
    })),
    tinker: { server: s.tinker.server, futureDeadlineS: String(s.tinker.futureDeadlineS), maxLoraRank: s.tinker.maxLoraRank === null ? "" : String(s.tinker.maxLoraRank), wire: s.tinker.wire },
    openai: {
      extraBody: JSON.stringify(s.openai.extraBody, null, 2),
      requestTimeoutS: String(s.openai.requestTimeoutS),
      minDecodeTokensPerS: String(s.openai.minDecodeTokensPerS),
      stream: s.openai.stream,
      maxConcurrency: String(s.openai.maxConcurrency),
      maxRetries: String(s.openai.maxRetries),
      maxRetryWaitS: String(s.openai.maxRetryWaitS),
    },
    lora: { adapterDir: s.lora.adapterDir ?? "", serverAdapterDir: s.lora.serverAdapterDir ?? "" },
    kept: { restarts: s.restarts },
  };
}

const num = (v: string) => (v.trim() === "" ? undefined : Number(v));

/** The field key an error path belongs to: models.<name>.<field>, tinker.<field>, openai.<field>. */
export function fieldKeyOf(path: readonly (string | number)[]): string {
  const p = path.map(String);
  return p[0] === "models" ? p.slice(0, 3).join(".") : p.slice(0, 2).join(".");
}

/** The draft as settings input, validated with the API's schema: the value to send, or errors by field. */
export function settingsFromDraft(d: SettingsDraft): { ok: true; value: z.input<typeof nodeSettingsSchema> } | { ok: false; errors: SettingsErrors } {
  const errors: SettingsErrors = {};
  let extraBody: unknown = {};
  try {
    extraBody = d.openai.extraBody.trim() === "" ? {} : JSON.parse(d.openai.extraBody);
  } catch (e) {
    errors["openai.extraBody"] = `not valid JSON: ${(e as Error).message}`;
  }
  const models: Record<string, unknown> = {};
  d.models.forEach((m, i) => {
    const name = m.name.trim();
    if (!name) errors[`models.#${i}.name`] = "the model name is required";
    else if (name in models) errors[`models.#${i}.name`] = `"${name}" is listed twice`;
    models[name || `#${i}`] = {
      renderer: m.renderer,
      ...(m.tokenizer.trim() ? { tokenizer: m.tokenizer.trim() } : {}),
      ...(m.enableThinking ? { enableThinking: m.enableThinking === "on" } : {}),
      ...(m.contextLength.trim() ? { contextLength: num(m.contextLength) } : {}),
    };
  });
  const value = {
    models,
    tinker: { server: d.tinker.server, futureDeadlineS: num(d.tinker.futureDeadlineS), maxLoraRank: d.tinker.maxLoraRank.trim() === "" ? null : num(d.tinker.maxLoraRank), wire: d.tinker.wire },
    openai: {
      extraBody,
      requestTimeoutS: num(d.openai.requestTimeoutS),
      minDecodeTokensPerS: num(d.openai.minDecodeTokensPerS),
      stream: d.openai.stream,
      maxConcurrency: num(d.openai.maxConcurrency),
      maxRetries: num(d.openai.maxRetries),
      maxRetryWaitS: num(d.openai.maxRetryWaitS),
    },
    lora: { adapterDir: d.lora.adapterDir.trim() || null, serverAdapterDir: d.lora.serverAdapterDir.trim() || null },
    ...d.kept,
  };
  const parsed = nodeSettingsSchema.safeParse(value);
  if (!parsed.success) for (const issue of parsed.error.issues) errors[fieldKeyOf(issue.path)] ??= issue.message;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: value as z.input<typeof nodeSettingsSchema> };
}

function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string; children: React.ReactNode }) {
  return (
    <div className={`field ${error ? "has-error" : ""}`} data-field={id}>
      <label htmlFor={`ns-${id}`}>{label}</label>
      {children}
      {hint && <span className="muted small">{hint}</span>}
      {error && (
        <span role="alert" className="error" id={`ns-${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

export function NodeSettingsEditor({ kind, draft, errors, onChange }: { kind: Kind; draft: SettingsDraft; errors: SettingsErrors; onChange: (d: SettingsDraft) => void }) {
  const set = (patch: Partial<SettingsDraft>) => onChange({ ...draft, ...patch });
  const setModel = (i: number, patch: Partial<ModelDraft>) => set({ models: draft.models.map((m, k) => (k === i ? { ...m, ...patch } : m)) });
  const modelError = (m: ModelDraft, i: number, field: string) => errors[`models.${m.name.trim()}.${field}`] ?? errors[`models.#${i}.${field}`];
  const inputProps = (id: string) => ({ id: `ns-${id}`, "aria-invalid": Boolean(errors[id]) || undefined, "aria-describedby": errors[id] ? `ns-${id}-error` : undefined });
  return (
    <div className="node-settings">
      <fieldset className="card">
        <legend>Models (rendering)</legend>
        <p className="muted small">{help(nodeSettingsSchema.shape.models)}</p>
        {draft.models.map((m, i) => (
          <div className="grid" key={i} data-model-row={i}>
            <Field id={`models.${i}.name`} label="Model name" error={modelError(m, i, "name")}>
              <input id={`ns-models.${i}.name`} value={m.name} placeholder="Qwen/Qwen3-8B" onChange={(e) => setModel(i, { name: e.target.value })} />
            </Field>
            <Field id={`models.${i}.renderer`} label="Renderer" hint={help(modelShape.renderer)} error={modelError(m, i, "renderer")}>
              <select id={`ns-models.${i}.renderer`} value={m.renderer} onChange={(e) => setModel(i, { renderer: e.target.value })}>
                {rendererNames.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </Field>
            <Field id={`models.${i}.tokenizer`} label="Tokenizer directory" hint={help(modelShape.tokenizer)} error={modelError(m, i, "tokenizer")}>
              <input id={`ns-models.${i}.tokenizer`} value={m.tokenizer} onChange={(e) => setModel(i, { tokenizer: e.target.value })} />
            </Field>
            <Field id={`models.${i}.enableThinking`} label="Thinking" hint={help(modelShape.enableThinking)} error={modelError(m, i, "enableThinking")}>
              <select id={`ns-models.${i}.enableThinking`} value={m.enableThinking} onChange={(e) => setModel(i, { enableThinking: e.target.value as ModelDraft["enableThinking"] })}>
                <option value="">(template default)</option>
                <option value="on">on</option>
                <option value="off">off</option>
              </select>
            </Field>
            <Field id={`models.${i}.contextLength`} label="Context length" hint={help(modelShape.contextLength)} error={modelError(m, i, "contextLength")}>
              <input
                id={`ns-models.${i}.contextLength`}
                type="number"
                value={m.contextLength}
                aria-invalid={Boolean(modelError(m, i, "contextLength")) || undefined}
                onChange={(e) => setModel(i, { contextLength: e.target.value })}
              />
            </Field>
            <div className="field">
              <button type="button" onClick={() => set({ models: draft.models.filter((_, k) => k !== i) })}>
                Remove model
              </button>
            </div>
          </div>
        ))}
        <button type="button" onClick={() => set({ models: [...draft.models, { name: "", renderer: "auto", tokenizer: "", enableThinking: "", contextLength: "" }] })}>
          Add model
        </button>
      </fieldset>
      {kind !== "openai" && (
        <fieldset className="card">
          <legend>Tinker-compatible API</legend>
          <div className="grid">
            <Field id="tinker.server" label="Server profile" hint={help(tinkerShape.server)} error={errors["tinker.server"]}>
              <select {...inputProps("tinker.server")} value={draft.tinker.server} onChange={(e) => set({ tinker: { ...draft.tinker, server: e.target.value } })}>
                {tinkerServerProfiles.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </Field>
            <Field id="tinker.futureDeadlineS" label="Result deadline (s)" hint={help(tinkerShape.futureDeadlineS)} error={errors["tinker.futureDeadlineS"]}>
              <input {...inputProps("tinker.futureDeadlineS")} type="number" value={draft.tinker.futureDeadlineS} onChange={(e) => set({ tinker: { ...draft.tinker, futureDeadlineS: e.target.value } })} />
            </Field>
            <Field id="tinker.maxLoraRank" label="Largest LoRA rank" hint={help(tinkerShape.maxLoraRank)} error={errors["tinker.maxLoraRank"]}>
              <input {...inputProps("tinker.maxLoraRank")} type="number" value={draft.tinker.maxLoraRank} placeholder="(server default)" onChange={(e) => set({ tinker: { ...draft.tinker, maxLoraRank: e.target.value } })} />
            </Field>
            <Field id="tinker.wire" label="forward_backward encoding" hint={help(tinkerShape.wire)} error={errors["tinker.wire"]}>
              <select {...inputProps("tinker.wire")} value={draft.tinker.wire} onChange={(e) => set({ tinker: { ...draft.tinker, wire: e.target.value } })}>
                <option>protobuf</option>
                <option>json</option>
              </select>
            </Field>
          </div>
        </fieldset>
      )}
      {kind !== "tinker" && (
        <fieldset className="card">
          <legend>OpenAI-compatible chat</legend>
          <div className="grid">
            <Field id="openai.extraBody" label="Extra body (JSON)" hint={help(openaiShape.extraBody)} error={errors["openai.extraBody"]}>
              <textarea {...inputProps("openai.extraBody")} rows={4} value={draft.openai.extraBody} onChange={(e) => set({ openai: { ...draft.openai, extraBody: e.target.value } })} />
            </Field>
            {(["requestTimeoutS", "minDecodeTokensPerS", "maxConcurrency", "maxRetries", "maxRetryWaitS"] as const).map((k) => (
              <Field key={k} id={`openai.${k}`} label={k.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()} hint={help(openaiShape[k])} error={errors[`openai.${k}`]}>
                <input {...inputProps(`openai.${k}`)} type="number" value={draft.openai[k]} onChange={(e) => set({ openai: { ...draft.openai, [k]: e.target.value } })} />
              </Field>
            ))}
            <Field id="openai.stream" label="Stream replies" hint={help(openaiShape.stream)} error={errors["openai.stream"]}>
              <input {...inputProps("openai.stream")} type="checkbox" checked={draft.openai.stream} onChange={(e) => set({ openai: { ...draft.openai, stream: e.target.checked } })} />
            </Field>
          </div>
        </fieldset>
      )}
      {kind === "openai" && (
        <fieldset className="card">
          <legend>Trained checkpoints as LoRA adapters</legend>
          <p className="muted small">{help(nodeSettingsSchema.shape.lora._def.innerType)}</p>
          <div className="grid">
            {(["adapterDir", "serverAdapterDir"] as const).map((k) => (
              <Field key={k} id={`lora.${k}`} label={k === "adapterDir" ? "Adapter directory (worker)" : "Adapter directory (server)"} hint={help(loraShape[k])} error={errors[`lora.${k}`]}>
                <input {...inputProps(`lora.${k}`)} value={draft.lora[k]} placeholder="/srv/envace/adapters" onChange={(e) => set({ lora: { ...draft.lora, [k]: e.target.value } })} />
              </Field>
            ))}
          </div>
        </fieldset>
      )}
    </div>
  );
}
