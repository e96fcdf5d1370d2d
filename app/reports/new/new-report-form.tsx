"use client";
/** Build a report: title, runs (prefilled from ?runs=), Markdown notes with a preview. */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { RunPicker } from "../../_components/run-picker";
import { MarkdownView } from "../../_components/report/markdown-view";
import { useImagePolicy } from "../../_lib/image-policy";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function NewReportForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const initialIds = (params.get("runs") ?? "").split(",").filter((id) => UUID.test(id));
  const initial = useQuery({ ...trpc.compare.runs.queryOptions({ runIds: initialIds }), enabled: initialIds.length > 0 });
  const [picked, setPicked] = useState<{ id: string; name: string }[] | null>(null);
  const runs = picked ?? initial.data?.runs.map((r) => ({ id: r.id, name: r.name })) ?? [];
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [preview, setPreview] = useState(false);
  const images = useImagePolicy();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const create = useMutation(trpc.reports.create.mutationOptions());

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setErrors({});
    setFormError(null);
    try {
      const report = await create.mutateAsync({ title, body, runIds: runs.map((r) => r.id) });
      router.push(`/reports/${report.id}`);
    } catch (err) {
      const fieldErrors = (err as { data?: { fieldErrors?: { path: string; message: string }[] | null } }).data?.fieldErrors ?? [];
      const next: Record<string, string> = {};
      for (const f of fieldErrors) next[f.path.split(".")[0]!] ??= f.message;
      setErrors(next);
      if (fieldErrors.length === 0) setFormError((err as Error).message);
    }
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="page-head">
        <h1>New report</h1>
      </div>
      <div className={`field${errors.title ? " has-error" : ""}`}>
        <label htmlFor="report-title">Title</label>
        <input id="report-title" value={title} onChange={(e) => setTitle(e.target.value)} aria-invalid={!!errors.title} maxLength={200} required />
        {errors.title && <span role="alert" className="error small">{errors.title}</span>}
      </div>
      <fieldset className={`card${errors.runIds ? " has-error" : ""}`}>
        <legend>Runs</legend>
        <RunPicker selected={runs} onChange={setPicked} max={20} />
        {errors.runIds && <span role="alert" className="error small">{errors.runIds}</span>}
      </fieldset>
      <div className="field">
        <div className="row">
          <label htmlFor="report-notes">Notes (Markdown: # headings, **bold**, *italic*, `code`, lists, [links](https://…))</label>
          <button type="button" onClick={() => setPreview(!preview)} aria-pressed={preview}>
            {preview ? "Edit" : "Preview"}
          </button>
        </div>
        {preview ? (
          <div className="card">
            <MarkdownView source={body} imagesFromOtherHosts={images.otherHosts} />
          </div>
        ) : (
          <textarea id="report-notes" rows={8} value={body} onChange={(e) => setBody(e.target.value)} />
        )}
      </div>
      {formError && <p role="alert" className="error">{formError}</p>}
      <div>
        <button className="primary" type="submit" disabled={create.isPending}>
          Create report
        </button>
      </div>
    </form>
  );
}
