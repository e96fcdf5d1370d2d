"use client";
/**
 * Choosing BFCL v4 categories in the new-run form: the categories of each paper column as checkboxes (a whole
 * column at once, or one by one), written back into `data.dataset` as `bfcl:<group or category>,…`. Web
 * search and memory_vector need a node (the run's bfcl settings): shown disabled here with the reason. Training runs take the
 * multi-turn categories only. A subset of tasks goes in data.instanceIds.
 */
import { BFCL_V4_ENTRY_COUNTS, type ScoringCategory } from "@/lib/bfcl/aggregate";
import { BFCL_DATASET_PREFIX, BFCL_GROUPS, bfclDataset, isMultiTurnCategory, parseBfclDataset } from "@/lib/bfcl/categories";
import { NOT_RUN_REASONS, isNotRunCategory } from "@/lib/bfcl/not-run";
import { PAPER_COLUMN_CATEGORIES, PAPER_COLUMN_LABELS } from "@/lib/bfcl/paper";

/** Columns as the paper orders them, plus relevance (shown by upstream, in no column). */
const SECTIONS: { label: string; group: string | null; categories: ScoringCategory[] }[] = [
  { label: PAPER_COLUMN_LABELS.multiTurn, group: "multi_turn", categories: PAPER_COLUMN_CATEGORIES.multiTurn },
  { label: PAPER_COLUMN_LABELS.nonLive, group: "non_live", categories: PAPER_COLUMN_CATEGORIES.nonLive },
  { label: PAPER_COLUMN_LABELS.live, group: "live", categories: PAPER_COLUMN_CATEGORIES.live },
  { label: PAPER_COLUMN_LABELS.irrelevance, group: "irrelevance", categories: PAPER_COLUMN_CATEGORIES.irrelevance },
  { label: "Relevance", group: null, categories: ["live_relevance"] },
  { label: PAPER_COLUMN_LABELS.memory, group: "memory", categories: PAPER_COLUMN_CATEGORIES.memory },
  { label: PAPER_COLUMN_LABELS.web, group: "web_search", categories: PAPER_COLUMN_CATEGORIES.web },
];
/** Groups used to write a compact dataset value, largest first. */
const COMPACT_GROUPS = ["single_turn", "multi_turn", "non_live", "live", "irrelevance", "memory"];

export const isBfclDataset = (dataset: unknown): dataset is string => typeof dataset === "string" && dataset.startsWith(BFCL_DATASET_PREFIX);

/** The categories a dataset value names (none when it does not parse). */
export function selectedCategories(dataset: string): Set<ScoringCategory> {
  const parsed = parseBfclDataset(dataset);
  return new Set(parsed.ok ? parsed.selection.categories.filter((c) => !isNotRunCategory(c)) : []);
}

/** A dataset value for a set of runnable categories, using group names where a whole group is chosen. */
export function datasetFor(categories: ReadonlySet<ScoringCategory>): string {
  const left = new Set(categories);
  const items: string[] = [];
  for (const g of COMPACT_GROUPS) {
    const members = BFCL_GROUPS[g].filter((c) => !isNotRunCategory(c));
    if (members.every((c) => left.has(c))) {
      items.push(g);
      members.forEach((c) => left.delete(c));
    }
  }
  const order = Object.keys(BFCL_V4_ENTRY_COUNTS);
  items.push(...[...left].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
  return bfclDataset(items);
}

export function BfclPicker({
  dataset,
  kind,
  instanceIds,
  trials,
  error,
  onChange,
  onChooseTasks,
}: {
  dataset: string;
  kind: "train" | "eval";
  instanceIds: string[];
  trials: number;
  error?: string;
  onChange: (dataset: string) => void;
  /** Shows the data · instanceIds field (an advanced setting, collapsed by default). */
  onChooseTasks: () => void;
}) {
  const selected = selectedCategories(dataset);
  const allowed = (c: ScoringCategory) => !isNotRunCategory(c) && (kind === "eval" || isMultiTurnCategory(c));
  const set = (categories: ScoringCategory[], on: boolean) => {
    const next = new Set(selected);
    for (const c of categories) if (allowed(c)) (on ? next.add(c) : next.delete(c));
    onChange(next.size ? datasetFor(next) : BFCL_DATASET_PREFIX);
  };
  // As the BFCL environment counts them (lib/eval-tasks.ts): repeated ids run once.
  const tasks = new Set(instanceIds).size || [...selected].reduce((n, c) => n + BFCL_V4_ENTRY_COUNTS[c], 0);
  return (
    <fieldset className="card" data-testid="bfcl-picker">
      <legend>BFCL v4 categories</legend>
      <p className="small muted">
        {kind === "train"
          ? "Training runs on the multi-turn categories (all three paradigms; shadow execution runs the real back ends)."
          : "Each category is scored by upstream's checker; the run reports per-category Avg@k and the paper's columns."}{" "}
        A subset of tasks goes in data · instanceIds (task ids such as multi_turn_base_3):{" "}
        <button type="button" className="link-button" onClick={onChooseTasks}>
          choose task ids
        </button>
        .
      </p>
      <div className="grid">
        {SECTIONS.map((s) => {
          const usable = s.categories.filter(allowed);
          const all = usable.length > 0 && usable.every((c) => selected.has(c));
          return (
            <div key={s.label} className="field" data-bfcl-section={s.label}>
              <label>
                <input type="checkbox" checked={all} disabled={usable.length === 0} onChange={(e) => set(usable, e.target.checked)} /> <strong>{s.label}</strong>
              </label>
              {s.categories.map((c) => (
                <label key={c} className="small" title={isNotRunCategory(c) ? `not run: ${NOT_RUN_REASONS[c]}` : undefined}>
                  <input type="checkbox" name={`bfcl-${c}`} checked={selected.has(c)} disabled={!allowed(c)} onChange={(e) => set([c], e.target.checked)} /> {c}
                  <span className="muted"> ({BFCL_V4_ENTRY_COUNTS[c]})</span>
                  {isNotRunCategory(c) && <span className="muted"> — needs a node (BFCL web search and vector memory settings; name it in the dataset)</span>}
                  {!isNotRunCategory(c) && !allowed(c) && <span className="muted"> — evaluation only</span>}
                </label>
              ))}
            </div>
          );
        })}
      </div>
      <div className="small" data-testid="bfcl-picker-summary">
        <code>{dataset}</code> · {tasks} task{tasks === 1 ? "" : "s"}
        {instanceIds.length ? " (data · instanceIds)" : ""} × {trials} trial{trials === 1 ? "" : "s"}
      </div>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </fieldset>
  );
}
