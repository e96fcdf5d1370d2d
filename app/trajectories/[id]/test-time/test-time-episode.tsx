"use client";
/**
 * A test-time episode (worker/engine/testtime.ts) in reading order: the N private attempts — each with its
 * ending, the policy's assessment and suggestion, and its full trajectory on demand (the same timeline as
 * the trajectory page) — then the rehearsal memory they were condensed into, then the committed execution
 * that memory conditioned. Reached from the trajectory list and from any of its trajectories' pages.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/root";
import { useTRPC } from "../../../_lib/trpc";
import { formatNumber } from "../../../_lib/format";
import { TrajectoryTimeline } from "../../_components/trajectory-timeline";

type Episode = inferRouterOutputs<AppRouter>["trajectories"]["testTimeEpisode"];
type SamplingSet = Episode["record"]["sampling"];

function Expandable({ label, testId, children }: { label: string; testId: string; children: React.ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="tt-expand">
      <button type="button" className="tv-mini" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid={testId}>
        {open ? `Hide ${label}` : `Show ${label}`}
      </button>
      {open && <div className="tt-expanded">{children}</div>}
    </div>
  );
}

function SamplingTable({ sampling }: { sampling: SamplingSet }) {
  const rows: [string, SamplingSet[keyof SamplingSet]][] = [
    ["act (attempts and committed execution)", sampling.act],
    ["rehearse (imagined tool results and user turns)", sampling.rehearse],
    ["assessment", sampling.assessment],
    ["memory", sampling.memory],
  ];
  return (
    <table className="table tt-sampling" data-testid="test-time-sampling">
      <caption className="muted small">Sampling per phase</caption>
      <thead>
        <tr>
          <th scope="col">phase</th>
          <th scope="col" className="num">temperature</th>
          <th scope="col" className="num">top-p</th>
          <th scope="col" className="num">max tokens</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, s]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td className="num">{s.temperature}</td>
            <td className="num">{s.topP}</td>
            <td className="num">{s.maxTokens.toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function TestTimeEpisodeView({ id }: { id: string }) {
  const trpc = useTRPC();
  const episode = useQuery(trpc.trajectories.testTimeEpisode.queryOptions({ id }));
  if (episode.error) return <p role="alert" className="error">{episode.error.message}</p>;
  if (!episode.data) return <p className="muted">Loading test-time episode…</p>;
  const { run, committed, record, attempts } = episode.data;
  return (
    <div className="tv tt-episode" data-testid="test-time-episode">
      <nav className="small tv-crumbs" aria-label="Breadcrumb">
        <Link href={`/runs/${run.id}`}>{run.name}</Link> › <Link href={`/runs/${run.id}/trajectories`}>trajectories</Link> ›{" "}
        <Link href={`/trajectories/${committed.id}`}>committed execution</Link> › test-time episode
      </nav>
      <div className="page-head">
        <h1>Test-time episode · {committed.instanceId}</h1>
        <span className={`tv-outcome o-${committed.outcome}`}>{committed.outcome}</span>
      </div>
      <div className="card tv-summary">
        <dl className="tv-facts">
          <div>
            <dt>mode</dt>
            <dd data-testid="test-time-mode">
              {record.mode}, {record.attempts.length} private attempt{record.attempts.length === 1 ? "" : "s"}
            </dd>
          </div>
          <div>
            <dt>committed reward</dt>
            <dd>{formatNumber(committed.reward)}</dd>
          </div>
          <div>
            <dt>committed in</dt>
            <dd>{record.committedParadigm} paradigm</dd>
          </div>
          <div>
            <dt>private tokens</dt>
            <dd title="prompt + response tokens spent before the committed execution">{record.privateTokens.toLocaleString()}</dd>
          </div>
        </dl>
        <p className="small muted tt-explain">
          The private attempts ran in the policy&apos;s own rehearsed world: it imagined every tool result and every later user turn. They
          reached no environment, simulator, user simulator or judge, and saw none of the task&apos;s hidden data. Only the committed
          execution below met the real world.
        </p>
        <SamplingTable sampling={record.sampling} />
      </div>

      <section aria-labelledby="tt-attempts">
        <h2 id="tt-attempts">Private attempts</h2>
        <ol className="tt-attempts">
          {record.attempts.map((a) => {
            const row = attempts.find((x) => x.rolloutIndex === a.index);
            return (
              <li key={a.index} className="card tt-attempt" data-testid="private-attempt">
                <header className="tt-attempt-head">
                  <strong>Attempt {a.index + 1}</strong>
                  <span className="small muted">
                    ended: {a.terminationReason} · {row ? `${row.numTurns} turns · ` : ""}
                    {a.tokens.toLocaleString()} tokens
                  </span>
                  {row && (
                    <Link className="small" href={`/trajectories/${row.id}`}>
                      open as a trajectory
                    </Link>
                  )}
                </header>
                {a.feedbackError ? (
                  <p role="note" className="error small">The assessment failed: {a.feedbackError}</p>
                ) : (
                  <dl className="tt-feedback" data-testid="attempt-feedback">
                    <dt>Assessment</dt>
                    <dd>{a.assessment || <span className="muted">(none given)</span>}</dd>
                    <dt>Suggestion</dt>
                    <dd>{a.suggestion || <span className="muted">(none given)</span>}</dd>
                  </dl>
                )}
                <details className="tv-think">
                  <summary>Condensed transcript the assessment saw</summary>
                  <div className="tv-pre">{a.transcript}</div>
                </details>
                {row ? (
                  <Expandable label="trajectory" testId="expand-attempt">
                    <TrajectoryTimeline id={row.id} anchorPrefix={`a${a.index}-`} />
                  </Expandable>
                ) : (
                  <p className="small muted">This attempt&apos;s turns were not stored.</p>
                )}
              </li>
            );
          })}
        </ol>
      </section>

      <section aria-labelledby="tt-memory">
        <h2 id="tt-memory">Rehearsal memory</h2>
        <div className="card" data-testid="test-time-memory">
          {record.memoryError ? (
            <p role="note" className="error">Writing the memory failed ({record.memoryError}): the committed execution ran without notes.</p>
          ) : record.memory ? (
            <>
              {record.memoryTruncated && (
                <p role="note" className="small muted">
                  The memory was cut off (its token limit, or an unfinished thought, which was dropped): the committed execution saw what is shown.
                </p>
              )}
              <div className="tv-pre">{record.memory}</div>
            </>
          ) : (
            <p className="muted">The policy wrote an empty memory: the committed execution ran without notes.</p>
          )}
        </div>
      </section>

      <section aria-labelledby="tt-committed">
        <h2 id="tt-committed">Committed execution</h2>
        <div className="card" data-testid="committed-execution">
          <p className="small">
            reward {formatNumber(committed.reward)} · {committed.terminationReason} · {committed.numTurns} turns ·{" "}
            <Link href={`/trajectories/${committed.id}`}>open as a trajectory</Link>
          </p>
          <Expandable label="committed trajectory" testId="expand-committed">
            <TrajectoryTimeline id={committed.id} anchorPrefix="c-" />
          </Expandable>
        </div>
      </section>
    </div>
  );
}
