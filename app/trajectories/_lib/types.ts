import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/root";

type Out = inferRouterOutputs<AppRouter>["trajectories"];
export type TrajectoryDetail = Out["get"];
export type TurnRow = Out["get"]["turns"][number];
export type VerdictRow = Out["get"]["verdicts"][number];
export type ListRow = Out["list"]["items"][number];
export type GroupResult = Out["group"];
export type Facets = Out["facets"];

export interface FidelityValue {
  exact: boolean;
  errorAgreement: boolean;
  score: number;
  /** values | both_errors | error_mismatch | invalid_rehearsal (absent on turns stored before docs/FIDELITY.md). */
  outcome: string | null;
}

export function asFidelity(v: unknown): FidelityValue | null {
  if (typeof v !== "object" || v === null) return null;
  const f = v as Record<string, unknown>;
  return typeof f.score === "number"
    ? { exact: f.exact === true, errorAgreement: f.errorAgreement === true, score: f.score, outcome: typeof f.outcome === "string" ? f.outcome : null }
    : null;
}

export interface CallValue {
  id?: string;
  name: string;
  arguments: string;
}

/** Tool calls as persisted: an array on act turns, one object on tool turns. */
export function asCalls(v: unknown): CallValue[] {
  const list = Array.isArray(v) ? v : v && typeof v === "object" ? [v] : [];
  return list
    .filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null)
    .map((c) => ({
      id: typeof c.id === "string" ? c.id : undefined,
      name: String(c.name ?? ""),
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? null),
    }));
}

/** Keyboard shortcuts must not fire while the user types in a field. */
export function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName);
}
