"use client";
/**
 * The new-run form as "Evaluate this checkpoint…" opens it (/runs/new?evaluate=<training run>&step=<n|latest>):
 * which checkpoint (the training run's, by step) and which benchmark — BFCL v4 (its categories in the BFCL
 * picker below), the τ²-bench domains, the built-in domains, imported datasets, and those against MCP
 * servers. Choosing a benchmark starts the settings afresh from the training run's (lib/checkpoint-eval.ts):
 * its node, model, sampling and limits, the benchmark's test split and real environment.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef } from "react";
import type { RunConfigInput } from "@/contracts/run-config";
import { benchmarkOf, benchmarkOptions, type BenchmarkOption } from "@/lib/benchmarks";
import { checkpointEvaluationConfig } from "@/lib/checkpoint-eval";
import { useTRPC } from "../../_lib/trpc";

export interface CheckpointCardProps {
  runId: string;
  /** The step the page was opened for ("latest" for the final policy). */
  initialStep: number | "latest";
  config: RunConfigInput;
  error?: string;
  /** A fresh config (and a run name) for the chosen checkpoint and benchmark. */
  onConfig(config: RunConfigInput, name: string | null): void;
}

const GROUPS: BenchmarkOption["group"][] = ["BFCL v4", "τ²-bench", "Built-in domains", "Imported datasets", "MCP servers"];

export function CheckpointCard({ runId, initialStep, config, error, onConfig }: CheckpointCardProps) {
  const trpc = useTRPC();
  const training = useQuery(trpc.runs.get.queryOptions({ id: runId }));
  const checkpoints = useQuery(trpc.runs.checkpoints.queryOptions({ runId }));
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const mcp = useQuery(trpc.mcpServers.list.queryOptions());
  const options = useMemo(() => benchmarkOptions(datasets.data ?? [], mcp.data ?? []), [datasets.data, mcp.data]);
  const step = config.policy?.checkpoint?.step ?? initialStep;
  const dataset = config.data?.dataset ?? "";
  const seeded = useRef(false);

  const draft = (s: number | "latest", d: string) => {
    const t = training.data!;
    const label = s === "latest" ? "latest" : `step ${s}`;
    onConfig(checkpointEvaluationConfig(t.config, { runId, step: s, dataset: d }), `${t.name} (${label}) on ${d}`.slice(0, 200));
  };
  // Opened from the run page: start from the training run's own dataset (its test split).
  useEffect(() => {
    if (seeded.current || !training.data) return;
    seeded.current = true;
    const own = (training.data.config as { data?: { dataset?: unknown } }).data?.dataset;
    draft(initialStep, typeof own === "string" ? own : "builtin:shop");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [training.data]);

  if (training.error) return <p role="alert" className="error">{training.error.message}</p>;
  if (!training.data) return <p className="muted">Loading the training run…</p>;
  const live = (checkpoints.data ?? []).filter((c) => !c.deletedAt);
  const chosen = step === "latest" ? live[0] : live.find((c) => c.step === step);
  return (
    <fieldset className="card section" data-testid="checkpoint-card">
      <legend>Checkpoint and benchmark</legend>
      <p>
        Evaluating a checkpoint of <Link href={`/runs/${runId}`}>{training.data.name}</Link> ({training.data.config && (training.data.config as { policy?: { model?: string } }).policy?.model} on node{" "}
        <strong>{training.data.policyNode}</strong>), not the base model.
      </p>
      <div className="grid">
        <div className={`field ${error ? "has-error" : ""}`} data-field="policy.checkpoint.step">
          <label htmlFor="checkpoint-step">Checkpoint</label>
          <select
            id="checkpoint-step"
            value={String(step)}
            onChange={(e) => draft(e.target.value === "latest" ? "latest" : Number(e.target.value), dataset)}
          >
            <option value="latest">latest{live[0] ? ` (step ${live[0].step})` : ""}</option>
            {step !== "latest" && !live.some((c) => c.step === step) && <option value={step}>step {step} (not among its checkpoints)</option>}
            {live.map((c) => (
              <option key={c.id} value={c.step}>
                step {c.step}
              </option>
            ))}
          </select>
          <span className="help">{chosen ? `Sampler weights ${chosen.samplerPath} on node "${chosen.nodeName}"` : "The launch check resolves the step and refuses one that is missing or deleted."}</span>
          {error && (
            <span role="alert" className="error">
              {error}
            </span>
          )}
        </div>
        <div className="field" data-field="benchmark">
          <label htmlFor="benchmark">Benchmark</label>
          <select id="benchmark" value={benchmarkOf(dataset, options)?.dataset ?? dataset} onChange={(e) => draft(step, e.target.value)}>
            {!benchmarkOf(dataset, options) && dataset && <option value={dataset}>{dataset}</option>}
            {GROUPS.map((g) => {
              const mine = options.filter((o) => o.group === g);
              return mine.length ? (
                <optgroup key={g} label={g}>
                  {mine.map((o) => (
                    <option key={o.dataset} value={o.dataset}>
                      {o.label}
                    </option>
                  ))}
                </optgroup>
              ) : null;
            })}
          </select>
          <span className="help">Choosing a benchmark starts the settings afresh from the training run&apos;s: its node, model, sampling and limits; the benchmark&apos;s test split and real environment.</span>
        </div>
      </div>
    </fieldset>
  );
}
