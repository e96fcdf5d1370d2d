"use client";
/**
 * Launch a test-time comparison in one go (runs.launchTestTimeComparison): per benchmark, one evaluation
 * run per arm — no rehearsal, parallel N, sequential N — on the same tasks, and a report whose Table 3
 * lays them out. Starts from the test-time preset (the paper's sampling per phase, lengths for the
 * embedded node); every field maps to a run-config setting, and server errors are shown on their field.
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { TRPCClientError } from "@trpc/client";
import { testTimePreset, type RunConfigInput } from "@/contracts/run-config";
import { testTimeArms, type TestTimeArm } from "@/contracts/test-time";
import { armLabel, benchmarkLabel } from "@/lib/test-time";
import { useTRPC } from "../../_lib/trpc";

type Phase = "act" | "rehearse" | "assessment" | "memory";
type Sampling = { temperature: number; topP: number; maxTokens: number };
interface BenchmarkRow {
  dataset: string;
  enabled: boolean;
  split: "train" | "test";
  ids: string;
  /** Built-in rows have a fixed dataset; the custom row takes any data.dataset value (bfcl:…, dataset:…). */
  fixed: boolean;
  help: string;
}

const preset = testTimePreset as Required<Pick<RunConfigInput, "testTime" | "rollout" | "policy" | "data">> & RunConfigInput;
const presetSampling = preset.testTime!.sampling as Record<Phase, Sampling>;
const phases: { key: Phase; label: string }[] = [
  { key: "act", label: "act (attempts and committed execution)" },
  { key: "rehearse", label: "rehearse (imagined tool results and user turns)" },
  { key: "assessment", label: "assessment" },
  { key: "memory", label: "memory (its max tokens bound the memory)" },
];

function NumberInput({ id, value, onChange, step = "any", field, error }: { id: string; value: number; onChange: (v: number) => void; step?: string; field: string; error?: string }) {
  return (
    <>
      <input id={id} type="number" step={step} value={Number.isFinite(value) ? value : ""} onChange={(e) => onChange(e.target.value === "" ? NaN : Number(e.target.value))} data-field={field} aria-invalid={Boolean(error)} />
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </>
  );
}

export function TestTimeComparisonForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const launch = useMutation(trpc.runs.launchTestTimeComparison.mutationOptions());
  const [name, setName] = useState("test-time comparison");
  const [node, setNode] = useState(preset.policy!.node ?? "embedded");
  const [model, setModel] = useState(preset.policy!.model ?? "tiny-gpt");
  // A training run's checkpoint instead of the base model (policy.checkpoint): its run (id or name) and step.
  const [checkpointRun, setCheckpointRun] = useState("");
  const [checkpointStep, setCheckpointStep] = useState("latest");
  const [benchmarks, setBenchmarks] = useState<BenchmarkRow[]>([
    { dataset: "builtin:shop", enabled: true, split: "test", ids: "", fixed: true, help: "the built-in shop domain" },
    { dataset: "tau2:retail", enabled: false, split: "train", ids: "", fixed: true, help: "needs a user simulator; every task of the split unless task ids are given" },
    { dataset: "tau2:telecom", enabled: false, split: "train", ids: "", fixed: true, help: "needs a user simulator that calls tools (the user acts on its phone); every task of the split unless task ids are given" },
    { dataset: "tau2:airline", enabled: false, split: "train", ids: "", fixed: true, help: "needs a user simulator; every task of the split unless task ids are given" },
    { dataset: "", enabled: false, split: "test", ids: "", fixed: false, help: "any data.dataset value, e.g. bfcl:… or dataset:<name>" },
  ]);
  const [tasks, setTasks] = useState(preset.data!.instancesPerStep ?? 8);
  const [trials, setTrials] = useState(1);
  const [userNode, setUserNode] = useState("embedded");
  const [userModel, setUserModel] = useState("tiny-gpt");
  const [attempts, setAttempts] = useState(preset.testTime!.attempts ?? 4);
  const [arms, setArms] = useState<TestTimeArm[]>([...testTimeArms]);
  const [sampling, setSampling] = useState<Record<Phase, Sampling>>(structuredClone(presetSampling));
  const [transcriptTokens, setTranscriptTokens] = useState(preset.testTime!.transcriptTokens ?? 384);
  const [thinkingTokens, setThinkingTokens] = useState(preset.testTime!.thinkingTokens ?? 0);
  const [maxAssistantTurns, setMaxAssistantTurns] = useState(preset.rollout!.maxAssistantTurns ?? 4);
  const [maxUserTurns, setMaxUserTurns] = useState(preset.rollout!.maxUserTurns ?? 2);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const chosen = benchmarks.filter((b) => b.enabled && b.dataset.trim());
  const needsUser = chosen.some((b) => b.dataset.startsWith("tau2:"));

  const config = useMemo((): RunConfigInput => {
    const rollout = { ...preset.rollout!, maxAssistantTurns, maxUserTurns, ...(needsUser ? { userSimulator: { node: userNode, model: userModel } } : {}) };
    return {
      ...preset,
      policy: {
        node,
        model,
        ...(checkpointRun.trim() ? { checkpoint: { run: checkpointRun.trim(), step: /^\d+$/.test(checkpointStep.trim()) ? Number(checkpointStep.trim()) : (checkpointStep.trim() as "latest") || "latest" } } : {}),
      },
      data: { ...preset.data!, instancesPerStep: tasks },
      rollout,
      trialsPerTask: trials,
      testTime: { ...preset.testTime!, attempts, sampling, transcriptTokens, thinkingTokens },
    };
  }, [node, model, checkpointRun, checkpointStep, tasks, trials, maxAssistantTurns, maxUserTurns, needsUser, userNode, userModel, attempts, sampling, transcriptTokens, thinkingTokens]);

  const runCount = chosen.length * arms.length;
  const summary =
    chosen.length && arms.length
      ? `Launches ${runCount} evaluation run${runCount === 1 ? "" : "s"} — ${arms.map((a) => armLabel(a, attempts)).join(", ")} — on ${chosen.map((b) => benchmarkLabel(b.dataset.trim())).join(", ")}, every arm on the same tasks with ${trials} trial(s) each, and a report that lays them out as the paper's Table 3.`
      : "Choose at least one benchmark and one arm.";

  const setRow = (i: number, patch: Partial<BenchmarkRow>) => setBenchmarks((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const err = (path: string) => errors[path];

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    setErrors({});
    try {
      const out = await launch.mutateAsync({
        name: name.trim(),
        config,
        arms,
        benchmarks: chosen.map((b) => {
          const ids = b.ids.split(",").map((s) => s.trim()).filter(Boolean);
          return { dataset: b.dataset.trim(), split: b.split, ...(ids.length ? { instanceIds: ids } : {}) };
        }),
      });
      router.push(`/reports/${out.reportId}`);
    } catch (error) {
      if (error instanceof TRPCClientError) {
        const fieldErrors = (error.data as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors ?? [];
        const mapped: Record<string, string> = {};
        // "config.x.y" and "benchmarks.<i>.x.y" both name run-config path x.y.
        for (const f of fieldErrors) mapped[f.path.replace(/^config\./, "").replace(/^benchmarks\.\d+\./, "")] ??= f.message;
        setErrors(mapped);
        setFormError(error.message);
      } else setFormError(String(error));
    }
  }

  return (
    <form onSubmit={onSubmit} className="run-form tt-form" noValidate data-testid="test-time-form">
      <div className="page-head">
        <h1>Test-time comparison</h1>
      </div>
      <p className="muted">
        Compares evaluation without test-time scaling against private rehearsal before one committed execution — N independent attempts
        (parallel) or N attempts each conditioned on the earlier ones (sequential) — on the same tasks. Private attempts run in the
        policy&apos;s own imagined world: they contact no environment, simulator, user simulator or judge.
      </p>
      <div className="card">
        <div className="row">
          <div className="field">
            <label htmlFor="tt-name">Comparison name</label>
            <input id="tt-name" value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field" data-field="policy.node">
            <label htmlFor="tt-node">Policy node</label>
            <input id="tt-node" value={node} onChange={(e) => setNode(e.target.value)} />
            {err("policy.node") && <span role="alert" className="error">{err("policy.node")}</span>}
          </div>
          <div className="field" data-field="policy.model">
            <label htmlFor="tt-model">Policy model</label>
            <input id="tt-model" value={model} onChange={(e) => setModel(e.target.value)} />
          </div>
          <div className="field" data-field="policy.checkpoint.run">
            <label htmlFor="tt-checkpoint-run">Checkpoint of training run (optional)</label>
            <input id="tt-checkpoint-run" value={checkpointRun} placeholder="base model" onChange={(e) => setCheckpointRun(e.target.value)} />
            <span className="help">A training run&apos;s id or name: every arm evaluates its checkpoint (the policy model is the one it trained).</span>
            {err("policy.checkpoint.run") && <span role="alert" className="error">{err("policy.checkpoint.run")}</span>}
          </div>
          <div className="field" data-field="policy.checkpoint.step">
            <label htmlFor="tt-checkpoint-step">Checkpoint step</label>
            <input id="tt-checkpoint-step" value={checkpointStep} onChange={(e) => setCheckpointStep(e.target.value)} />
            {err("policy.checkpoint.step") && <span role="alert" className="error">{err("policy.checkpoint.step")}</span>}
          </div>
        </div>
      </div>

      <fieldset className="card">
        <legend>Benchmarks (columns of Table 3)</legend>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">use</th>
              <th scope="col">benchmark</th>
              <th scope="col">split</th>
              <th scope="col">task ids (optional, comma separated)</th>
            </tr>
          </thead>
          <tbody>
            {benchmarks.map((b, i) => (
              <tr key={i}>
                <td>
                  <input type="checkbox" checked={b.enabled} onChange={(e) => setRow(i, { enabled: e.target.checked })} aria-label={`use ${b.fixed ? benchmarkLabel(b.dataset) : "another dataset"}`} />
                </td>
                <td>
                  {b.fixed ? (
                    <strong>{benchmarkLabel(b.dataset)}</strong>
                  ) : (
                    <input value={b.dataset} placeholder="bfcl:… or dataset:<name>" onChange={(e) => setRow(i, { dataset: e.target.value, enabled: e.target.value.trim() !== "" })} aria-label="other dataset" />
                  )}
                  <div className="small muted">
                    {b.fixed ? <code>{b.dataset}</code> : null} {b.help}
                  </div>
                </td>
                <td>
                  <select value={b.split} onChange={(e) => setRow(i, { split: e.target.value as "train" | "test" })} aria-label={`split of ${b.dataset || "the other dataset"}`}>
                    <option value="test">test</option>
                    <option value="train">train</option>
                  </select>
                </td>
                <td>
                  <input value={b.ids} onChange={(e) => setRow(i, { ids: e.target.value })} aria-label={`task ids of ${b.dataset || "the other dataset"}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {(err("data.dataset") ?? err("data.split") ?? err("data.instanceIds")) && (
          <p role="alert" className="error">
            {err("data.dataset") ?? err("data.split") ?? err("data.instanceIds")}
          </p>
        )}
        <div className="grid">
          <div className="field" data-field="data.instancesPerStep">
            <label htmlFor="tt-tasks">Tasks per benchmark (when no ids are given; tau2 evaluates its whole split)</label>
            <NumberInput id="tt-tasks" value={tasks} onChange={setTasks} step="1" field="data.instancesPerStep" error={err("data.instancesPerStep")} />
          </div>
          <div className="field" data-field="trialsPerTask">
            <label htmlFor="tt-trials">Trials per task (k of Avg@k)</label>
            <NumberInput id="tt-trials" value={trials} onChange={setTrials} step="1" field="trialsPerTask" error={err("trialsPerTask")} />
          </div>
          {needsUser && (
            <>
              <div className="field" data-field="rollout.userSimulator">
                <label htmlFor="tt-user-node">User simulator node (tau2, committed executions only)</label>
                <input id="tt-user-node" value={userNode} onChange={(e) => setUserNode(e.target.value)} />
                {(err("rollout.userSimulator.node") ?? err("rollout.userSimulator")) && (
                  <span role="alert" className="error">
                    {err("rollout.userSimulator.node") ?? err("rollout.userSimulator")}
                  </span>
                )}
              </div>
              <div className="field">
                <label htmlFor="tt-user-model">User simulator model</label>
                <input id="tt-user-model" value={userModel} onChange={(e) => setUserModel(e.target.value)} />
              </div>
            </>
          )}
        </div>
      </fieldset>

      <fieldset className="card">
        <legend>Arms (rows of Table 3)</legend>
        <div className="tt-benchmarks">
          {testTimeArms.map((a) => (
            <label key={a}>
              <input type="checkbox" checked={arms.includes(a)} onChange={(e) => setArms((cur) => (e.target.checked ? testTimeArms.filter((x) => x === a || cur.includes(x)) : cur.filter((x) => x !== a)))} />{" "}
              {armLabel(a, attempts)}
            </label>
          ))}
          <div className="field" data-field="testTime.attempts">
            <label htmlFor="tt-attempts">Private attempts per task (N)</label>
            <NumberInput id="tt-attempts" value={attempts} onChange={setAttempts} step="1" field="testTime.attempts" error={err("testTime.attempts")} />
          </div>
        </div>
      </fieldset>

      <fieldset className="card">
        <legend>Sampling per phase</legend>
        <p className="small muted">The paper&apos;s test-time setting: act and rehearse at temperature 1.0 / top-p 1.0, assessment and memory at 0.01.</p>
        <table className="table tt-phases">
          <thead>
            <tr>
              <th scope="col">phase</th>
              <th scope="col">temperature</th>
              <th scope="col">top-p</th>
              <th scope="col">max tokens</th>
            </tr>
          </thead>
          <tbody>
            {phases.map((p) => (
              <tr key={p.key}>
                <th scope="row">{p.label}</th>
                {(["temperature", "topP", "maxTokens"] as const).map((k) => (
                  <td key={k}>
                    <NumberInput
                      id={`tt-${p.key}-${k}`}
                      value={sampling[p.key][k]}
                      step={k === "maxTokens" ? "1" : "any"}
                      onChange={(v) => setSampling((s) => ({ ...s, [p.key]: { ...s[p.key], [k]: v } }))}
                      field={`testTime.sampling.${p.key}.${k}`}
                      error={err(`testTime.sampling.${p.key}.${k}`)}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        <div className="grid">
          <div className="field" data-field="testTime.transcriptTokens">
            <label htmlFor="tt-transcript">Transcript tokens per assessment / memory prompt (actions are never cut)</label>
            <NumberInput id="tt-transcript" value={transcriptTokens} onChange={setTranscriptTokens} step="1" field="testTime.transcriptTokens" error={err("testTime.transcriptTokens")} />
          </div>
          <div className="field" data-field="testTime.thinkingTokens">
            <label htmlFor="tt-thinking">Thinking tokens kept per message in transcripts (0 = stripped)</label>
            <NumberInput id="tt-thinking" value={thinkingTokens} onChange={setThinkingTokens} step="1" field="testTime.thinkingTokens" error={err("testTime.thinkingTokens")} />
          </div>
          <div className="field" data-field="rollout.maxAssistantTurns">
            <label htmlFor="tt-max-assistant">Max assistant turns per episode</label>
            <NumberInput id="tt-max-assistant" value={maxAssistantTurns} onChange={setMaxAssistantTurns} step="1" field="rollout.maxAssistantTurns" error={err("rollout.maxAssistantTurns")} />
          </div>
          <div className="field" data-field="rollout.maxUserTurns">
            <label htmlFor="tt-max-user">Max user turns per episode</label>
            <NumberInput id="tt-max-user" value={maxUserTurns} onChange={setMaxUserTurns} step="1" field="rollout.maxUserTurns" error={err("rollout.maxUserTurns")} />
          </div>
        </div>
      </fieldset>

      <div className="card summary" data-testid="test-time-summary">
        <strong>What will run:</strong> {summary}
      </div>
      {formError && (
        <p role="alert" className="error" data-testid="test-time-error">
          {formError}
        </p>
      )}
      <button type="submit" className="primary" disabled={launch.isPending || runCount === 0}>
        Launch comparison
      </button>
    </form>
  );
}
