"use client";
/**
 * The new-study form: a base config (a preset, or a run's config with `?from=<run id>`, editable as
 * JSON), the grid of settings the runs differ in (a setting and its values per row: the options of a
 * choice, or a comma list), and the seeds. Refusals come back on their fields (`grid.1.values.0`).
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { TRPCClientError } from "@trpc/client";
import { presets, type PresetKey } from "@/contracts/run-config";
import { runSettings, settingTitle, withoutUnknownSettings } from "@/contracts/run-settings";
import { gridCells, parseValueList, studySize, valueText } from "@/lib/studies";
import { useTRPC } from "../../_lib/trpc";

interface Row {
  setting: string;
  /** Chosen options of a choice setting. */
  options: string[];
  /** The values of any other setting, as typed. */
  text: string;
}

type Errors = Record<string, string>;

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

export function NewStudyForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const from = params.get("from");
  const settings = useMemo(() => runSettings().filter((s) => s.kind !== "object-list" && s.key !== "data.seed" && s.key !== "kind"), []);
  const [name, setName] = useState("");
  const [preset, setPreset] = useState<PresetKey>("quickstart");
  const [configText, setConfigText] = useState(pretty(presets.quickstart.config));
  const [rows, setRows] = useState<Row[]>([]);
  const [seeds, setSeeds] = useState("2");
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);

  const source = useQuery({ ...trpc.runs.get.queryOptions({ id: from ?? "" }), enabled: Boolean(from) });
  useEffect(() => {
    if (!source.data) return;
    setConfigText(pretty(withoutUnknownSettings(source.data.config).config));
    setName((n) => n || `${source.data.name} study`);
  }, [source.data]);

  const create = useMutation(trpc.studies.create.mutationOptions());

  const parsedConfig = useMemo((): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } => {
    try {
      const value = JSON.parse(configText) as unknown;
      if (!value || typeof value !== "object" || Array.isArray(value)) return { ok: false, message: "the base config must be a JSON object of run settings" };
      return { ok: true, value: value as Record<string, unknown> };
    } catch (e) {
      return { ok: false, message: `not valid JSON: ${(e as Error).message}` };
    }
  }, [configText]);
  const grid = rows.map((r) => {
    const s = settings.find((x) => x.key === r.setting);
    return { setting: r.setting.trim(), values: s?.kind === "enum" ? r.options : s?.kind === "boolean" ? r.options.map((o) => o === "true") : parseValueList(r.text) };
  });
  const seedValue: number | number[] | null = /^\s*\d+\s*$/.test(seeds) ? Number(seeds) : /^\s*\d+(\s*,\s*\d+)+\s*$/.test(seeds) ? seeds.split(",").map((x) => Number(x.trim())) : null;
  const seedCount = seedValue === null ? 0 : Array.isArray(seedValue) ? seedValue.length : seedValue;
  const groups = gridCells(grid).length;

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    const errs: Errors = {};
    if (!name.trim()) errs["name"] = "name is required";
    if (!parsedConfig.ok) errs["config"] = parsedConfig.message;
    if (seedValue === null) errs["seeds"] = "a count (4) or a comma list of seeds (0,3,7)";
    grid.forEach((a, i) => {
      if (!a.setting) errs[`grid.${i}.setting`] = "name a run setting";
      else if (a.values.length === 0) errs[`grid.${i}.values`] = "give at least one value";
    });
    setErrors(errs);
    if (Object.keys(errs).length || !parsedConfig.ok || seedValue === null) return;
    try {
      const study = await create.mutateAsync({ name: name.trim(), config: parsedConfig.value, grid, seeds: seedValue });
      router.push(`/studies/${study.id}`);
    } catch (err) {
      if (err instanceof TRPCClientError) {
        const fieldErrors = (err.data as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors ?? [];
        const mapped: Errors = {};
        for (const f of fieldErrors) {
          // grid.1.values.0 shows on row 1's values; config.* under the base config.
          const key = /^grid\.\d+\.values/.test(f.path) ? f.path.replace(/^(grid\.\d+\.values).*$/, "$1") : f.path.startsWith("config") ? "config" : f.path;
          const message = f.path.startsWith("config.") ? `${f.path.slice("config.".length)}: ${f.message}` : f.message;
          mapped[key] = mapped[key] ? `${mapped[key]}; ${message}` : message;
        }
        setErrors(mapped);
        setFormError(err.message);
      } else setFormError(String(err));
    }
  }

  const setRow = (i: number, patch: Partial<Row>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const fieldError = (key: string) =>
    errors[key] ? (
      <span role="alert" className="error" data-testid={`error-${key}`}>
        {errors[key]}
      </span>
    ) : null;

  return (
    <form onSubmit={onSubmit} className="run-form" noValidate data-testid="new-study-form">
      <div className="page-head">
        <h1>New study</h1>
      </div>
      <div className="card">
        <div className="row">
          <div className={`field ${errors["name"] ? "has-error" : ""}`}>
            <label htmlFor="study-name">Study name</label>
            <input id="study-name" value={name} onChange={(e) => setName(e.target.value)} />
            {fieldError("name")}
          </div>
          {!from && (
            <div className="field">
              <label htmlFor="study-preset">Base config from a preset</label>
              <select
                id="study-preset"
                value={preset}
                onChange={(e) => {
                  const key = e.target.value as PresetKey;
                  setPreset(key);
                  setConfigText(pretty(presets[key].config));
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
        <div className={`field ${errors["config"] ? "has-error" : ""}`}>
          <label htmlFor="study-config">Base run config (JSON; every run starts from it){from && source.data ? ` — from run “${source.data.name}”` : ""}</label>
          <textarea id="study-config" className="code" rows={14} value={configText} onChange={(e) => setConfigText(e.target.value)} spellCheck={false} />
          {fieldError("config")}
        </div>
      </div>

      <fieldset className="card section">
        <legend>Grid: the settings the runs differ in</legend>
        {fieldError("grid")}
        {rows.map((row, i) => {
          const s = settings.find((x) => x.key === row.setting);
          return (
            <div className="row grid-axis" key={i} data-testid="grid-axis">
              <div className={`field ${errors[`grid.${i}.setting`] ? "has-error" : ""}`}>
                <label htmlFor={`grid-${i}-setting`}>Setting</label>
                <input id={`grid-${i}-setting`} list="study-settings" value={row.setting} onChange={(e) => setRow(i, { setting: e.target.value, options: [] })} />
                {s && <span className="help">{settingTitle(s)}: {s.description}</span>}
                {fieldError(`grid.${i}.setting`)}
              </div>
              <div className={`field ${errors[`grid.${i}.values`] ? "has-error" : ""}`}>
                <span className="label">Values</span>
                {s?.kind === "enum" || s?.kind === "boolean" ? (
                  <div role="group" aria-label={`values of ${row.setting}`}>
                    {(s.kind === "enum" ? s.options : ["true", "false"]).map((o) => (
                      <label key={o} className="small">
                        <input
                          type="checkbox"
                          checked={row.options.includes(o)}
                          onChange={(e) => setRow(i, { options: e.target.checked ? [...row.options, o] : row.options.filter((x) => x !== o) })}
                        />{" "}
                        {o}
                      </label>
                    ))}
                  </div>
                ) : (
                  <input aria-label={`values of ${row.setting}`} value={row.text} placeholder="comma separated, e.g. 0.0001, 0.0003" onChange={(e) => setRow(i, { text: e.target.value })} />
                )}
                {fieldError(`grid.${i}.values`)}
              </div>
              <button type="button" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))} aria-label={`remove grid setting ${i + 1}`}>
                Remove
              </button>
            </div>
          );
        })}
        <datalist id="study-settings">
          {settings.map((s) => (
            <option key={s.key} value={s.key}>
              {settingTitle(s)}
            </option>
          ))}
        </datalist>
        <button type="button" onClick={() => setRows((rs) => [...rs, { setting: "", options: [], text: "" }])}>
          Add a setting
        </button>
      </fieldset>

      <div className="card">
        <div className={`field ${errors["seeds"] ? "has-error" : ""}`}>
          <label htmlFor="study-seeds">Seeds per group</label>
          <input id="study-seeds" value={seeds} onChange={(e) => setSeeds(e.target.value)} />
          <span className="help">A count (from the base config&apos;s data.seed on) or a comma list of seeds.</span>
          {fieldError("seeds")}
        </div>
        <p className="summary" data-testid="study-summary" aria-live="polite">
          <strong>What will run:</strong> {groups} group{groups === 1 ? "" : "s"}
          {grid.length ? ` (${grid.map((a) => `${a.setting || "?"} ∈ {${a.values.map(valueText).join(", ")}}`).join(" × ")})` : ""} × {seedCount} seed{seedCount === 1 ? "" : "s"} ={" "}
          {studySize(grid, seedCount)} runs, created together.
        </p>
      </div>
      {formError && <p role="alert" className="error">{formError}</p>}
      <button type="submit" className="primary" disabled={create.isPending}>
        Launch study
      </button>
    </form>
  );
}
