"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../../_lib/trpc";
import { formatNumber } from "../../../_lib/format";
import { splitOutput } from "../../../trajectories/_lib/act-text";

export interface GroupKey {
  /** "private": the private attempts of one committed test-time execution (its rollout id is the group id). */
  /** "suite:<name>": an evaluation suite's group. */
  phase: "train" | "eval" | "private" | `suite:${string}`;
  step: number;
  groupId: string;
}

/** `phase|step|groupId` in the URL (the group id itself may contain anything after the second bar). */
export function parseGroupParam(v: string | null): GroupKey | null {
  if (!v) return null;
  const a = v.indexOf("|");
  const b = a < 0 ? -1 : v.indexOf("|", a + 1);
  if (b < 0) return null;
  const phase = v.slice(0, a);
  const step = Number(v.slice(a + 1, b));
  const groupId = v.slice(b + 1);
  const known = phase === "train" || phase === "eval" || phase === "private" || /^suite:[a-z0-9][a-z0-9_-]{0,39}$/.test(phase);
  if (!known || !Number.isInteger(step) || step < 0 || !groupId) return null;
  return { phase: phase as GroupKey["phase"], step, groupId };
}

export function groupParam(g: GroupKey): string {
  return `${g.phase}|${g.step}|${g.groupId}`;
}

function adv(a: { mean: number | null; min: number | null; max: number | null; count: number } | undefined) {
  if (!a || a.mean == null) return "—";
  const spread = a.min != null && a.max != null && a.max - a.min > 1e-9 ? ` (${formatNumber(a.min)}…${formatNumber(a.max)})` : "";
  return `${a.mean > 0 ? "+" : ""}${formatNumber(a.mean)}${spread}`;
}

/** The K rollouts of one instance group at one step, side by side. */
export function GroupView({ runId, group, query, onClose }: { runId: string; group: GroupKey; query: string; onClose: () => void }) {
  const trpc = useTRPC();
  const g = useQuery(trpc.trajectories.group.queryOptions({ runId, ...group }));
  return (
    <section className="card tb-group" aria-labelledby="group-title" data-testid="group-view">
      <div className="page-head">
        <h2 id="group-title">
          Group at step {group.step} ({group.phase}){g.data ? ` · ${g.data.instanceId}` : ""}
        </h2>
        {g.data && (
          <span className="small muted">
            reward mean {formatNumber(g.data.rewardMean)} ± {formatNumber(g.data.rewardStd)} · {g.data.members.length} rollouts
          </span>
        )}
        <div className="spacer" />
        <button type="button" onClick={onClose}>
          Close group
        </button>
      </div>
      {g.error && <p role="alert" className="error">{g.error.message}</p>}
      {!g.data && !g.error && <p className="muted">Loading group…</p>}
      {g.data && (
        <div className="tb-group-grid" style={{ gridTemplateColumns: `repeat(${Math.min(g.data.members.length, 8)}, minmax(220px, 1fr))` }}>
          {g.data.members.map((m) => {
            const last = m.lastTurn ? splitOutput(m.lastTurn.text).filter((s) => s.kind !== "think").map((s) => s.text).join("\n") : "";
            return (
              <div key={m.id} className={`tb-member o-${m.outcome}`} data-testid="group-member">
                <div className="tb-member-head">
                  <strong>rollout {m.rolloutIndex}</strong>
                  <span className={`tv-outcome o-${m.outcome}`} title={m.errorCause ?? undefined}>
                    {m.outcome}
                  </span>
                </div>
                <div className="tb-reward" aria-label={`reward ${m.reward}`}>
                  {formatNumber(m.reward)}
                </div>
                <dl className="kv small">
                  <div>
                    <dt>act advantage</dt>
                    <dd data-testid="adv-act">{adv(m.advantages.act)}</dd>
                  </div>
                  <div>
                    <dt>{m.paradigm === "simulator" ? "simulator" : "rehearse"} advantage</dt>
                    <dd data-testid="adv-rehearse">{adv(m.advantages.rehearse ?? m.advantages.simulator)}</dd>
                  </div>
                  <div>
                    <dt>termination</dt>
                    <dd>{m.terminationReason}</dd>
                  </div>
                  <div>
                    <dt>turns</dt>
                    <dd>{m.numTurns}</dd>
                  </div>
                  <div>
                    <dt>tokens act / reh.</dt>
                    <dd>
                      {m.actTokens} / {m.rehearseTokens}
                    </dd>
                  </div>
                  <div>
                    <dt>fidelity</dt>
                    <dd>{formatNumber(m.fidelity)}</dd>
                  </div>
                </dl>
                {m.lastTurn && (
                  <div className="tb-last">
                    <div className="small muted">
                      ended on {m.lastTurn.role}
                      {m.lastTurn.errorCode ? ` · ${m.lastTurn.errorCode}` : ""}
                    </div>
                    <div className="tv-pre small">{last.slice(0, 400)}</div>
                  </div>
                )}
                <Link className="button" href={`/trajectories/${m.id}${query ? `?${query}` : ""}`}>
                  Open rollout {m.rolloutIndex}
                </Link>
              </div>
            );
          })}
        </div>
      )}
    </section>
  );
}
