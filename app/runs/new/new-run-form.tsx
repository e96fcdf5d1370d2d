"use client";
/**
 * The new-run form. Every setting shows its label, unit, one-line help and default, all from the run
 * settings description (contracts/run-settings.ts); advanced settings and whole sections start
 * collapsed; the summary says what the run will do and how long it should take on the chosen node.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { TRPCClientError } from "@trpc/client";
import { parseRunConfig, presets, type PresetKey, type RunConfigInput } from "@/contracts/run-config";
import { formatSettingValue, settingTitle, withoutUnknownSettings, type RunSetting } from "@/contracts/run-settings";
import { useTRPC } from "../../_lib/trpc";
import { describeEstimate, describePlan } from "../../_lib/run-summary";
import { fieldOfError, formSections, getPath, panelsOf, setPath, type FormSection } from "../../_lib/schema-form";
import { BfclPicker, isBfclDataset } from "./bfcl-picker";
import { ObjectListField } from "./object-list-field";
import { CheckpointCard } from "./checkpoint-card";

type Errors = Record<string, string>;

/** Drop optional sub-objects the user left empty (e.g. no judge node), so defaults do not invent them. */
function prune(value: unknown): unknown {
  // Items of a list of objects (evaluation suites) are pruned too; lists of strings stay as they are.
  if (Array.isArray(value)) return value.map((v) => (v !== null && typeof v === "object" ? prune(v) : v));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = prune(v);
    if (p === undefined || p === "") continue;
    if (typeof p === "object" && !Array.isArray(p) && p !== null && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}

function defaultText(s: RunSetting): string {
  if (s.default === undefined) return s.optional ? "Default: unset" : "No default";
  return `Default: ${formatSettingValue(s.default)}${s.unit && typeof s.default === "number" ? ` ${s.unit}` : ""}`;
}

function Field({ setting, value, error, onChange }: { setting: RunSetting; value: unknown; error?: string; onChange: (v: unknown) => void }) {
  const id = `field-${setting.path.join("-")}`;
  const describedBy = [`${id}-help`, `${id}-default`, error ? `${id}-error` : null].filter(Boolean).join(" ");
  const placeholder = setting.default === undefined ? "unset" : formatSettingValue(setting.default);
  let input: React.ReactNode;
  if (setting.kind === "boolean") {
    input = <input id={id} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.target.checked)} aria-describedby={describedBy} />;
  } else if (setting.kind === "enum") {
    input = (
      <select id={id} value={(value as string) ?? ""} onChange={(e) => onChange(e.target.value || undefined)} aria-describedby={describedBy}>
        <option value="">(default{setting.default !== undefined ? `: ${formatSettingValue(setting.default)}` : ""})</option>
        {setting.options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    );
  } else if (setting.kind === "number") {
    input = (
      <input
        id={id}
        type="number"
        step="any"
        min={setting.min}
        max={setting.max}
        placeholder={placeholder}
        value={value === undefined || value === null ? "" : String(value)}
        onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
      />
    );
  } else if (setting.kind === "string-list") {
    input = (
      <input
        id={id}
        value={Array.isArray(value) ? value.join(", ") : ""}
        placeholder="comma separated"
        onChange={(e) => onChange(e.target.value.split(",").map((s) => s.trim()).filter(Boolean))}
        aria-describedby={describedBy}
      />
    );
  } else if (setting.kind === "number-or") {
    // A number, or one of a few words (a checkpoint step, or "latest").
    input = (
      <input
        id={id}
        value={value === undefined || value === null ? "" : String(value)}
        placeholder={`${placeholder} (a number or ${setting.words.join(", ")})`}
        onChange={(e) => {
          const t = e.target.value.trim();
          onChange(t === "" ? undefined : /^\d+$/.test(t) ? Number(t) : t);
        }}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
      />
    );
  } else {
    input = (
      <input id={id} value={(value as string) ?? ""} placeholder={placeholder} onChange={(e) => onChange(e.target.value || undefined)} aria-invalid={Boolean(error)} aria-describedby={describedBy} />
    );
  }
  return (
    <div className={`field ${error ? "has-error" : ""}`} data-field={setting.key}>
      <label htmlFor={id}>
        {settingTitle(setting)}
        {setting.unit && <span className="unit"> ({setting.unit})</span>}
      </label>
      {input}
      <span id={`${id}-help`} className="help">
        {setting.description}
      </span>
      <span id={`${id}-default`} className="default" data-testid="setting-default">
        {defaultText(setting)}
      </span>
      {error && (
        <span id={`${id}-error`} role="alert" className="error">
          {error}
        </span>
      )}
    </div>
  );
}

function Section({
  section,
  config,
  errors,
  open,
  setOpen,
  onChange,
}: {
  section: FormSection;
  config: RunConfigInput;
  errors: Errors;
  open: Set<string>;
  setOpen: (panel: string, isOpen: boolean) => void;
  onChange: (path: string[], v: unknown) => void;
}) {
  const fields = (list: RunSetting[]) => (
    <div className="grid">
      {list.map((s) =>
        s.kind === "object-list" ? (
          <ObjectListField
            key={s.key}
            setting={s}
            value={getPath(config, s.path)}
            errors={errors}
            onChange={(v) => onChange(s.path, v)}
            renderField={(f, v, e, change) => <Field setting={f} value={v} error={e} onChange={change} />}
          />
        ) : (
          <Field key={s.key} setting={s} value={getPath(config, s.path)} error={errors[s.key]} onChange={(v) => onChange(s.path, v)} />
        ),
      )}
    </div>
  );
  const advancedKey = `${section.key}:advanced`;
  const body = (
    <>
      {section.basic.length > 0 && fields(section.basic)}
      {section.advanced.length > 0 && (
        <details className="advanced" open={open.has(advancedKey)} onToggle={(e) => setOpen(advancedKey, (e.target as HTMLDetailsElement).open)}>
          <summary>Advanced ({section.advanced.length})</summary>
          {fields(section.advanced)}
        </details>
      )}
    </>
  );
  if (section.collapsed) {
    return (
      <details className="card section" open={open.has(section.key)} onToggle={(e) => setOpen(section.key, (e.target as HTMLDetailsElement).open)} data-section={section.key}>
        <summary className="legend">{section.label}</summary>
        {body}
      </details>
    );
  }
  return (
    <fieldset className="card section" data-section={section.key}>
      <legend>{section.label}</legend>
      {body}
    </fieldset>
  );
}

export function NewRunForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const cloneFrom = params.get("from");
  // "Evaluate this checkpoint…" on a training run's page: ?evaluate=<run id>&step=<n|latest>.
  const evaluate = cloneFrom ? null : params.get("evaluate");
  const evaluateStep = /^\d+$/.test(params.get("step") ?? "") ? Number(params.get("step")) : "latest";
  const sections = useMemo(() => formSections(), []);
  const [preset, setPreset] = useState<PresetKey>("quickstart");
  const [config, setConfig] = useState<RunConfigInput>(structuredClone(presets.quickstart.config));
  const [name, setName] = useState("quickstart");
  const [tags, setTags] = useState("");
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [open, setOpenState] = useState<Set<string>>(new Set());
  const setOpen = (panel: string, isOpen: boolean) =>
    setOpenState((prev) => {
      if (prev.has(panel) === isOpen) return prev;
      const next = new Set(prev);
      if (isOpen) next.add(panel);
      else next.delete(panel);
      return next;
    });

  const source = useQuery({ ...trpc.runs.get.queryOptions({ id: cloneFrom ?? "" }), enabled: Boolean(cloneFrom) });
  // A run keeps its config as launched; settings removed since would be refused at launch, so a clone leaves them out and says so.
  const [dropped, setDropped] = useState<string[]>([]);
  useEffect(() => {
    if (source.data) {
      const { config: known, dropped: gone } = withoutUnknownSettings(source.data.config);
      setConfig(known as RunConfigInput);
      setDropped(gone);
      setName(`${source.data.name} (copy)`);
      setTags(source.data.tags.join(", "));
    }
  }, [source.data]);

  const create = useMutation(trpc.runs.create.mutationOptions());
  const parsed = useMemo(() => parseRunConfig(prune(config)), [config]);
  const node = parsed.ok ? parsed.config.policy.node : null;
  const model = parsed.ok ? parsed.config.policy.model : undefined;
  const pace = useQuery({ ...trpc.nodes.throughput.queryOptions({ node: node ?? "", model }), enabled: Boolean(node), staleTime: 60_000 });

  /** Open the collapsed panels that hold these settings, then focus the first one's input. */
  function revealFields(keys: string[]) {
    const panels = keys.flatMap((k) => panelsOf(sections, k));
    setOpenState((prev) => new Set([...prev, ...panels]));
    const first = keys[0];
    if (!first) return;
    requestAnimationFrame(() => {
      const el = document.querySelector<HTMLElement>(`[data-field="${CSS.escape(first)}"] input, [data-field="${CSS.escape(first)}"] select`);
      el?.focus();
    });
  }

  function showErrors(errs: Errors) {
    const onFields: Errors = {};
    for (const [path, message] of Object.entries(errs)) onFields[fieldOfError(sections, path)] ??= message;
    setErrors(onFields);
    revealFields(Object.keys(onFields));
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    const errs: Errors = {};
    if (!name.trim()) errs["name"] = "name is required";
    if (!parsed.ok) parsed.errors.forEach((er) => (errs[er.path] ??= er.message));
    if (Object.keys(errs).length) return showErrors(errs);
    setErrors({});
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
          showErrors(mapped);
        }
        setFormError(err.message);
      } else setFormError(String(err));
    }
  }

  return (
    <form onSubmit={onSubmit} className="run-form" noValidate>
      <div className="page-head">
        <h1>{cloneFrom ? "Clone and edit run" : evaluate ? "Evaluate a checkpoint" : "New run"}</h1>
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
          {!cloneFrom && !evaluate && (
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
        {dropped.length > 0 && (
          <p className="small" role="status" data-testid="clone-dropped">
            Left out of the copy: {dropped.join(", ")} — {dropped.length === 1 ? "a setting" : "settings"} of the original run that no longer exist.
          </p>
        )}
        <p className="muted small">Empty boxes take the default shown under them. Every setting is also documented in the <a href="/api-docs#run-settings">API reference</a>.</p>
      </div>
      {evaluate && (
        <CheckpointCard
          runId={evaluate}
          initialStep={evaluateStep}
          config={config}
          error={errors["policy.checkpoint.step"] ?? errors["policy.checkpoint.run"]}
          onConfig={(c, runName) => {
            setConfig(c);
            if (runName) setName(runName);
            setErrors({});
          }}
        />
      )}
      {isBfclDataset(config.data?.dataset) && (
        <BfclPicker
          dataset={config.data.dataset}
          kind={config.kind ?? "train"}
          instanceIds={config.data.instanceIds ?? []}
          trials={config.trialsPerTask ?? 1}
          error={errors["data.dataset"]}
          onChange={(d) => setConfig((c) => setPath(c, ["data", "dataset"], d))}
          onChooseTasks={() => revealFields(["data.instanceIds"])}
        />
      )}
      {sections.map((s) => (
        <Section key={s.key} section={s} config={config} errors={errors} open={open} setOpen={setOpen} onChange={(path, v) => setConfig((c) => setPath(c, path, v))} />
      ))}
      <div className="card summary" data-testid="run-summary" aria-live="polite">
        <strong>What will run:</strong> {parsed.ok ? describePlan(parsed.config, pace.data) : "fix the highlighted fields to see a summary"}
        {parsed.ok && (
          <p className="estimate" data-testid="run-estimate">
            {describeEstimate(parsed.config, pace.isError ? null : pace.data)}
          </p>
        )}
      </div>
      {formError && <p role="alert" className="error">{formError}</p>}
      <button type="submit" className="primary" disabled={create.isPending}>
        Launch run
      </button>
    </form>
  );
}
