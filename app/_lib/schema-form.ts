/**
 * The new-run form's layout, from the one description of the run settings (contracts/run-settings.ts:
 * the zod schema's types, limits, defaults and help, plus labels, units and "advanced" flags): sections
 * in order, each split into its everyday settings and the advanced ones the form collapses. A field
 * added to the schema appears here without UI changes.
 */
import { runSettings, runSettingSections, type RunSetting } from "@/contracts/run-settings";

export interface FormSection {
  key: string;
  label: string;
  /** The whole section starts collapsed (e.g. sampling per role). */
  collapsed: boolean;
  basic: RunSetting[];
  advanced: RunSetting[];
}

export function formSections(settings: RunSetting[] = runSettings()): FormSection[] {
  return runSettingSections
    .map((s) => {
      const mine = settings.filter((f) => f.section === s.key);
      return { key: s.key, label: s.label, collapsed: Boolean(s.collapsed), basic: mine.filter((f) => !f.advanced), advanced: mine.filter((f) => f.advanced) };
    })
    .filter((s) => s.basic.length + s.advanced.length > 0);
}

/** The collapsible panels ("<section>" or "<section>:advanced") that hold a setting. */
export function panelsOf(sections: FormSection[], key: string): string[] {
  // An item field of a list setting (schedule.evalSuites.0.name) sits where its list does.
  const holds = (f: RunSetting) => f.key === key || (f.kind === "object-list" && key.startsWith(`${f.key}.`));
  for (const s of sections) {
    const inBasic = s.basic.some(holds);
    const inAdvanced = s.advanced.some(holds);
    if (!inBasic && !inAdvanced) continue;
    return [...(s.collapsed ? [s.key] : []), ...(inAdvanced ? [`${s.key}:advanced`] : [])];
  }
  return [];
}

/**
 * The field that shows an error at `path`: the setting itself, else the first setting of the group it
 * names ("reward.judge" → "reward.judge.node", "rollout.userSimulator" → its node), else the path as is.
 */
export function fieldOfError(sections: FormSection[], path: string): string {
  const all = sections.flatMap((s) => [...s.basic, ...s.advanced]);
  if (all.some((f) => f.key === path)) return path;
  // An item of a list setting: "schedule.evalSuites.1.userSimulator" → its first field, "….1.userSimulator.node".
  for (const list of all) {
    if (list.kind !== "object-list") continue;
    const m = new RegExp(`^${list.key.replace(/\./g, "\\.")}\\.(\\d+)\\.(.+)$`).exec(path);
    if (!m) continue;
    const field = list.fields.find((f) => f.key === m[2]) ?? list.fields.find((f) => f.key.startsWith(`${m[2]}.`));
    return field ? `${list.key}.${m[1]}.${field.key}` : path;
  }
  return all.find((f) => f.key.startsWith(`${path}.`))?.key ?? path;
}

export function getPath(obj: unknown, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

export function setPath<T>(obj: T, path: string[], value: unknown): T {
  const root = structuredClone(obj ?? {}) as Record<string, unknown>;
  let cur = root;
  path.slice(0, -1).forEach((k) => {
    if (typeof cur[k] !== "object" || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  });
  const last = path[path.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return root as T;
}
