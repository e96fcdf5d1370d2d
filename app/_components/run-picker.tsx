"use client";
/** Pick runs by name: a search box over the runs list plus the chosen runs as removable chips. */
import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTRPC } from "../_lib/trpc";

export function RunPicker({
  selected,
  onChange,
  max = 8,
  label = "Add a run",
}: {
  selected: { id: string; name: string }[];
  onChange: (runs: { id: string; name: string }[]) => void;
  max?: number;
  label?: string;
}) {
  const trpc = useTRPC();
  const listId = useId();
  const [search, setSearch] = useState("");
  const runs = useQuery(trpc.runs.list.queryOptions({ limit: 20, search: search || undefined }));
  const candidates = (runs.data?.items ?? []).filter((r) => !selected.some((s) => s.id === r.id));
  const full = selected.length >= max;
  return (
    <div className="run-picker">
      <div className="run-chips" aria-label="Selected runs">
        {selected.length === 0 && <span className="muted">No runs picked yet.</span>}
        {selected.map((r) => (
          <span key={r.id} className="run-chip">
            {r.name}
            <button type="button" aria-label={`Remove ${r.name}`} onClick={() => onChange(selected.filter((s) => s.id !== r.id))}>
              ×
            </button>
          </span>
        ))}
      </div>
      <label>
        {label}
        <input
          type="search"
          value={search}
          disabled={full}
          placeholder={full ? `at most ${max} runs` : "search run names"}
          onChange={(e) => setSearch(e.target.value)}
          aria-controls={listId}
        />
      </label>
      {!full && (
        <ul id={listId} className="run-candidates" aria-label="Matching runs">
          {candidates.slice(0, 8).map((r) => (
            <li key={r.id}>
              <button type="button" onClick={() => onChange([...selected, { id: r.id, name: r.name }])}>
                + {r.name} <span className="muted small">{r.status} · {r.paradigm}</span>
              </button>
            </li>
          ))}
          {runs.data && candidates.length === 0 && <li className="muted small">no other runs match</li>}
        </ul>
      )}
    </div>
  );
}
