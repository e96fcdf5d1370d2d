/**
 * Turns the run-config zod schema into form field descriptors, so the form always matches the
 * schema the API and worker validate with (new knobs appear in the form without UI changes).
 */
import { z } from "zod";

export type FieldDescriptor =
  | { path: string[]; label: string; kind: "number"; integer: boolean; min?: number; max?: number; optional: boolean }
  | { path: string[]; label: string; kind: "boolean"; optional: boolean }
  | { path: string[]; label: string; kind: "enum"; options: string[]; optional: boolean }
  | { path: string[]; label: string; kind: "string"; optional: boolean }
  | { path: string[]; label: string; kind: "string-list"; optional: boolean };

export interface FieldGroup {
  key: string;
  label: string;
  fields: FieldDescriptor[];
}

function unwrap(t: z.ZodTypeAny): { inner: z.ZodTypeAny; optional: boolean } {
  let optional = false;
  let cur = t;
  for (;;) {
    if (cur instanceof z.ZodDefault) cur = cur._def.innerType;
    else if (cur instanceof z.ZodOptional || cur instanceof z.ZodNullable) {
      optional = true;
      cur = cur._def.innerType;
    } else if (cur instanceof z.ZodEffects) cur = cur._def.schema;
    else break;
  }
  return { inner: cur, optional };
}

function humanize(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());
}

function leaves(t: z.ZodTypeAny, path: string[], parentOptional: boolean): FieldDescriptor[] {
  const { inner, optional: own } = unwrap(t);
  const optional = own || parentOptional;
  const label = humanize(path[path.length - 1] ?? "");
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodTypeAny>).flatMap(([k, v]) => leaves(v, [...path, k], optional));
  }
  if (inner instanceof z.ZodNumber) {
    const checks = inner._def.checks as { kind: string; value?: number }[];
    return [
      {
        path,
        label,
        kind: "number",
        integer: checks.some((c) => c.kind === "int"),
        min: checks.find((c) => c.kind === "min")?.value,
        max: checks.find((c) => c.kind === "max")?.value,
        optional,
      },
    ];
  }
  if (inner instanceof z.ZodBoolean) return [{ path, label, kind: "boolean", optional }];
  if (inner instanceof z.ZodEnum) return [{ path, label, kind: "enum", options: inner.options as string[], optional }];
  if (inner instanceof z.ZodLiteral) return []; // e.g. schemaVersion: fixed, not user-editable
  if (inner instanceof z.ZodString) return [{ path, label, kind: "string", optional }];
  if (inner instanceof z.ZodArray) return [{ path, label, kind: "string-list", optional }];
  return [];
}

const groupLabels: Record<string, string> = {
  kind: "Run",
  policy: "Policy and node",
  data: "Data",
  rollout: "Rollout paradigm and shadow execution",
  sampling: "Sampling per role",
  reward: "Reward and judge",
  optim: "Optimisation",
  schedule: "Schedule and limits",
  testTime: "Test-time rehearsal",
  trialsPerTask: "Evaluation",
  fidelityProbe: "Evaluation",
};

export function describeSchema(schema: z.ZodTypeAny): FieldGroup[] {
  const { inner } = unwrap(schema);
  if (!(inner instanceof z.ZodObject)) return [];
  const groups = new Map<string, FieldGroup>();
  for (const [key, value] of Object.entries(inner.shape as Record<string, z.ZodTypeAny>)) {
    const fields = leaves(value, [key], false);
    if (!fields.length) continue;
    const label = groupLabels[key] ?? humanize(key);
    const g = groups.get(label) ?? { key, label, fields: [] };
    g.fields.push(...fields);
    groups.set(label, g);
  }
  return [...groups.values()];
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
