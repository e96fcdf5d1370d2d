"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { TRPCClientError } from "@trpc/client";
import { parseRunConfig, presets, runConfigSchema, type PresetKey, type RunConfigInput } from "@/contracts/run-config";
import { useTRPC } from "../../_lib/trpc";
import { describeSchema, getPath, setPath, type FieldDescriptor } from "../../_lib/schema-form";
import { BfclPicker, isBfclDataset } from "./bfcl-picker";

type Errors = Record<string, string>;

/** Drop optional sub-objects the user left empty (e.g. no judge node), so defaults do not invent them. */
function prune(value: unknown): unknown {
  if (Array.isArray(value) || value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = prune(v);
    if (p === undefined || p === "") continue;
    if (typeof p === "object" && !Array.isArray(p) && p !== null && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}

function Field({ field, value, error, onChange }: { field: FieldDescriptor; value: unknown; error?: string; onChange: (v: unknown) => void }) {
  const id = `field-${field.path.join("-")}`;
  const describedBy = error ? `${id}-error` : undefined;
  let input: React.ReactNode;
  if (field.kind === "boolean") {
    input = <input id={id} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.target.checked)} aria-describedby={describedBy} />;
  } else if (field.kind === "enum") {
    input = (
      <select id={id} value={(value as string) ?? ""} onChange={(e) => onChange(e.target.value || undefined)} aria-describedby={describedBy}>
        {field.optional && <option value="">(default)</option>}
        {field.options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    );
  } else if (field.kind === "number") {
    input = (
      <input
        id={id}
        type="number"
        step="any"
        value={value === undefined || value === null ? "" : String(value)}
        onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
      />
    );
  } else if (field.kind === "string-list") {
    input = (
      <input
        id={id}
        value={Array.isArray(value) ? value.join(", ") : ""}
        placeholder="comma separated"
        onChange={(e) => onChange(e.target.value.split(",").map((s) => s.trim()).filter(Boolean))}
        aria-describedby={describedBy}
      />
    );
  } else {
    input = (
      <input id={id} value={(value as string) ?? ""} onChange={(e) => onChange(e.target.value || undefined)} aria-invalid={Boolean(error)} aria-describedby={describedBy} />
    );
  }
  return (
    <div className={`field ${error ? "has-error" : ""}`} data-field={field.path.join(".")}>
      <label htmlFor={id}>{field.path.length > 2 ? `${field.path[field.path.length - 2]} · ${field.label}` : field.label}</label>
      {input}
      {error && (
        <span id={`${id}-error`} role="alert" className="error">
          {error}
        </span>
      )}
    </div>
  );
}

export function NewRunForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const cloneFrom = params.get("from");
  const groups = useMemo(() => describeSchema(runConfigSchema), []);
  const [preset, setPreset] = useState<PresetKey>("quickstart");
  const [config, setConfig] = useState<RunConfigInput>(structuredClone(presets.quickstart.config));
  const [name, setName] = useState("quickstart");
  const [tags, setTags] = useState("");
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);

  const source = useQuery({ ...trpc.runs.get.queryOptions({ id: cloneFrom ?? "" }), enabled: Boolean(cloneFrom) });
  useEffect(() => {
    if (source.data) {
      setConfig(source.data.config as RunConfigInput);
      setName(`${source.data.name} (copy)`);
      setTags(source.data.tags.join(", "));
    }
  }, [source.data]);

  const create = useMutation(trpc.runs.create.mutationOptions());
  const summary = useMemo(() => {
    const parsed = parseRunConfig(prune(config));
    if (!parsed.ok) return null;
    const c = parsed.config;
    const rollouts = c.data.instancesPerStep * c.data.rolloutsPerInstance;
    return c.kind === "train"
      ? `${c.schedule.steps} steps × ${c.data.instancesPerStep} instances × ${c.data.rolloutsPerInstance} rollouts = ${rollouts} rollouts per step, ${rollouts * c.schedule.steps} in all; ${c.rollout.paradigm} paradigm${c.rollout.shadowExecution ? " with shadow execution" : ""}${c.reward.rehearsalGrounding > 0 ? ` (rehearsals grounded, weight ${c.reward.rehearsalGrounding})` : ""} on node "${c.policy.node}" (${c.policy.model}); checkpoint every ${c.schedule.saveEvery}, evaluate every ${c.schedule.evalEvery}.`
      : `evaluation: ${c.data.instancesPerStep} instances × ${c.trialsPerTask} trial(s) on node "${c.policy.node}" (${c.policy.model}), ${c.rollout.paradigm} paradigm.`;
  }, [config]);

  function focusFirstError(errs: Errors) {
    const first = Object.keys(errs)[0];
    if (!first) return;
    const el = document.querySelector<HTMLElement>(`[data-field="${CSS.escape(first)}"] input, [data-field="${CSS.escape(first)}"] select`);
    el?.focus();
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    const errs: Errors = {};
    if (!name.trim()) errs["name"] = "name is required";
    const parsed = parseRunConfig(prune(config));
    if (!parsed.ok) parsed.errors.forEach((er) => (errs[er.path] ??= er.message));
    setErrors(errs);
    if (Object.keys(errs).length) {
      focusFirstError(errs);
      return;
    }
    try {
      const run = await create.mutateAsync({
        name: name.trim(),
        tags: tags.split(",").map((t) => t.trim()).filter(Boolean),
        config: prune(config),
        parentRunId: cloneFrom ?? undefined,
      });
      router.push(`/runs/${run.id}`);
    } catch (err) {
      if (err instanceof TRPCClientError) {
        const fieldErrors = (err.data as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors;
        if (fieldErrors?.length) {
          const mapped: Errors = {};
          fieldErrors.forEach((f) => (mapped[f.path.replace(/^config\./, "")] ??= f.message));
          setErrors(mapped);
          focusFirstError(mapped);
        }
        setFormError(err.message);
      } else setFormError(String(err));
    }
  }

  return (
    <form onSubmit={onSubmit} className="run-form" noValidate>
      <div className="page-head">
        <h1>{cloneFrom ? "Clone and edit run" : "New run"}</h1>
      </div>
      <div className="card">
        <div className="row">
          <div className={`field ${errors["name"] ? "has-error" : ""}`} data-field="name">
            <label htmlFor="run-name">Run name</label>
            <input id="run-name" value={name} onChange={(e) => setName(e.target.value)} />
            {errors["name"] && <span role="alert" className="error">{errors["name"]}</span>}
          </div>
          <div className="field">
            <label htmlFor="run-tags">Tags</label>
            <input id="run-tags" value={tags} placeholder="comma separated" onChange={(e) => setTags(e.target.value)} />
          </div>
          {!cloneFrom && (
            <div className="field">
              <label htmlFor="preset">Preset</label>
              <select
                id="preset"
                value={preset}
                onChange={(e) => {
                  const key = e.target.value as PresetKey;
                  setPreset(key);
                  setConfig(structuredClone(presets[key].config));
                  setErrors({});
                }}
              >
                {Object.entries(presets).map(([k, p]) => (
                  <option key={k} value={k}>
                    {p.label}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
      </div>
      {isBfclDataset(config.data?.dataset) && (
        <BfclPicker
          dataset={config.data.dataset}
          kind={config.kind ?? "train"}
          instanceIds={config.data.instanceIds ?? []}
          trials={config.trialsPerTask ?? 1}
          error={errors["data.dataset"]}
          onChange={(d) => setConfig((c) => setPath(c, ["data", "dataset"], d))}
        />
      )}
      {groups.map((g) => (
        <fieldset key={g.label} className="card">
          <legend>{g.label}</legend>
          <div className="grid">
            {g.fields.map((f) => (
              <Field
                key={f.path.join(".")}
                field={f}
                value={getPath(config, f.path)}
                error={errors[f.path.join(".")]}
                onChange={(v) => setConfig((c) => setPath(c, f.path, v))}
              />
            ))}
          </div>
        </fieldset>
      ))}
      <div className="card summary" data-testid="run-summary">
        <strong>What will run:</strong> {summary ?? "fix the highlighted fields to see a summary"}
      </div>
      {formError && <p role="alert" className="error">{formError}</p>}
      <button type="submit" className="primary" disabled={create.isPending}>
        Launch run
      </button>
    </form>
  );
}
