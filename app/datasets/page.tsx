"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useState } from "react";
import { RequireUser, useMe } from "../_components/require-user";
import { formatTime } from "../_lib/format";
import { useTRPC } from "../_lib/trpc";

/** The largest file the API accepts (server/features/datasets/service.ts MAX_DATASET_BYTES). */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

interface LineError {
  line: string;
  message: string;
}

/** A dataset name from a file name: runs refer to it as dataset:<name>. */
function nameFromFile(fileName: string): string {
  return fileName.replace(/\.(jsonl|json)$/i, "").replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 100);
}

function ImportForm({ onImported }: { onImported: () => void }) {
  const trpc = useTRPC();
  const importDataset = useMutation(trpc.datasets.import.mutationOptions());
  const [name, setName] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<LineError[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);

  return (
    <form
      className="card form"
      aria-label="Import a dataset"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        setErrors([]);
        setFormError(null);
        setResult(null);
        if (!file) return setFormError("choose a .json or .jsonl file");
        if (file.size > MAX_FILE_BYTES) {
          return setFormError(`the file is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is 20 MB. Split it into several datasets.`);
        }
        try {
          const res = await importDataset.mutateAsync({
            name,
            text: await file.text(),
            split: f.get("split") === "test" ? "test" : "train",
            format: f.get("format") === "cm2" ? "cm2" : f.get("format") === "tasks" ? "tasks" : "auto",
            skipInvalid: f.get("skipInvalid") === "on",
            maxPromptLength: String(f.get("maxPromptLength") ?? "").trim() === "" ? null : Number(f.get("maxPromptLength")),
          });
          setResult(
            `Imported ${res.imported} instance${res.imported === 1 ? "" : "s"} into ${res.dataset.name}` +
              (res.skippedCount ? `; skipped ${res.skippedCount} invalid row${res.skippedCount === 1 ? "" : "s"}` : "") +
              (res.tooLongCount ? `; dropped ${res.tooLongCount} row${res.tooLongCount === 1 ? "" : "s"} whose prompt is over the length limit` : "") +
              ".",
          );
          setErrors([...res.skipped, ...res.tooLong].map((s) => ({ line: `line ${s.line}`, message: s.message })));
          onImported();
        } catch (err) {
          if (err instanceof TRPCClientError) {
            const fe = (err.data as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors ?? [];
            const byLine = fe.filter((x) => x.path.startsWith("line "));
            setErrors(byLine.map((x) => ({ line: x.path, message: x.message })));
            const other = fe.filter((x) => !x.path.startsWith("line "));
            setFormError(other.length ? other.map((x) => `${x.path}: ${x.message}`).join("; ") : err.message);
          } else {
            setFormError((err as Error).message);
          }
        }
      }}
    >
      <h2>Import a dataset</h2>
      <p className="muted small">
        CM2 rows (a JSON array or JSONL), or a task list: JSONL with one task per line, e.g.{" "}
        <code>{'{"id": "ada", "instruction": "Remember that Ada likes tea.", "checklist": ["Did it store that Ada likes tea?"]}'}</code> — checklist items are
        questions for the judge or objects with a programmatic <code>check</code>; <code>setup</code> lists tool calls that prepare an MCP server before the episode.
        Run a task list against an MCP server as <code>mcp:&lt;server&gt;/&lt;dataset&gt;</code>. Every row is validated; by default one invalid row rejects the whole
        file and nothing is written.
      </p>
      <label>
        File (.json or .jsonl)
        <input
          type="file"
          name="file"
          accept=".json,.jsonl,application/json"
          required
          onChange={(e) => {
            const chosen = e.currentTarget.files?.[0] ?? null;
            setFile(chosen);
            if (chosen && !name) setName(nameFromFile(chosen.name));
          }}
        />
      </label>
      <label>
        Name <input name="name" value={name} onChange={(e) => setName(e.currentTarget.value)} required pattern="[A-Za-z0-9_\-]{1,100}" title="letters, digits, _ or -" />
      </label>
      <label>
        Format
        <select name="format" defaultValue="auto">
          <option value="auto">decide from the first row</option>
          <option value="cm2">CM2 rows</option>
          <option value="tasks">task list (instruction + checklist per line)</option>
        </select>
      </label>
      <label>
        Split
        <select name="split" defaultValue="train">
          <option value="train">train</option>
          <option value="test">test</option>
        </select>
      </label>
      <label className="inline-check">
        <input type="checkbox" name="skipInvalid" /> Skip invalid rows (import the valid ones)
      </label>
      <label title="As the reference: rows whose prompt (chat template and tool schemas, Qwen3 tokens) is longer than this − 500 are dropped and listed. Empty keeps every row.">
        Max prompt length (tokens) <input name="maxPromptLength" type="number" min={501} defaultValue={4000} />
      </label>
      <button type="submit" className="primary" disabled={importDataset.isPending}>
        {importDataset.isPending ? "Importing…" : "Import"}
      </button>
      {result && <p className="notice" role="status" data-testid="import-result">{result}</p>}
      {formError && <p className="error" role="alert" data-testid="import-error">{formError}</p>}
      {errors.length > 0 && (
        <table className="table" data-testid="import-line-errors">
          <thead><tr><th>Line</th><th>Problem</th></tr></thead>
          <tbody>
            {errors.map((e, i) => (
              <tr key={i}><td className="mono">{e.line.replace("line ", "")}</td><td>{e.message}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </form>
  );
}

function Instances({ datasetId }: { datasetId: string }) {
  const trpc = useTRPC();
  const dataset = useQuery(trpc.datasets.get.queryOptions({ id: datasetId }));
  const page = useQuery(trpc.datasets.instances.queryOptions({ datasetId, limit: 50 }));
  return (
    <section className="card" data-testid="dataset-detail">
      <h2>{dataset.data?.name ?? "…"}</h2>
      <p className="muted">
        Use it in a run config as <code>dataset:{dataset.data?.name}</code>.{" "}
        {dataset.data?.splits.map((s) => `${s.split}: ${s.count}`).join(", ")}
      </p>
      <table className="table">
        <thead><tr><th>Instance</th><th>Split</th><th>First user message</th><th>Tools</th><th>User turns</th><th>Checklists</th></tr></thead>
        <tbody>
          {page.data?.items.map((i) => (
            <tr key={i.id}>
              <td className="mono">{i.externalId}</td>
              <td>{i.split}</td>
              <td>{i.firstUserMessage}</td>
              <td>{i.tools}</td>
              <td>{i.userTurns}</td>
              <td>{i.checklists}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.data?.nextCursor && <p className="muted small">Showing the first 50 instances.</p>}
    </section>
  );
}

export default function DatasetsPage() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useMe();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [selected, setSelected] = useState<string | null>(null);
  const canImport = me && me.role !== "viewer";
  return (
    <RequireUser>
      <h1>Datasets</h1>
      <table className="table" data-testid="datasets-table">
        <thead><tr><th>Name</th><th>Format</th><th>Instances</th><th>Imported</th></tr></thead>
        <tbody>
          {datasets.data?.length === 0 && (
            <tr><td colSpan={4} className="muted">No datasets yet.</td></tr>
          )}
          {datasets.data?.map((d) => (
            <tr key={d.id}>
              <td><button className="link" onClick={() => setSelected(d.id)}>{d.name}</button></td>
              <td>{d.format}</td>
              <td>{d.instanceCount}</td>
              <td>{formatTime(d.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {selected && <Instances datasetId={selected} />}
      {canImport && <ImportForm onImported={() => qc.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() })} />}
    </RequireUser>
  );
}
