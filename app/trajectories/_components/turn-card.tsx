"use client";
import { memo, useMemo } from "react";
import { prettyJson, splitOutput, type Segment } from "../_lib/act-text";
import { asCalls, asFidelity, type TurnRow, type VerdictRow } from "../_lib/types";
import { ResponseDiff } from "./json-diff-view";
import { Verdicts } from "./verdicts";

/** Roles shown as a tool answer (`user_tool`: the simulated user's own call on its device, e.g. tau2 telecom). */
const toolRoles = new Set(["rehearse", "simulator", "environment", "user_tool"]);

function Advantage({ value }: { value: number | null }) {
  if (value == null) return null;
  return (
    <span className={`tv-adv ${value > 0 ? "pos" : value < 0 ? "neg" : ""}`} title="GRPO advantage of this output">
      adv {value > 0 ? "+" : ""}
      {value.toFixed(3)}
    </span>
  );
}

function Thinking({ text }: { text: string }) {
  return (
    <details className="tv-think">
      <summary>Thinking ({text.length.toLocaleString()} chars)</summary>
      <div className="tv-pre">{text}</div>
    </details>
  );
}

function CallView({ name, args }: { name: string; args: string }) {
  return (
    <div className="tv-call" data-testid="tool-call">
      <span className="tv-call-name">{name}</span>
      <pre className="tv-json">{prettyJson(args)}</pre>
    </div>
  );
}

function ActBody({ turn, segments }: { turn: TurnRow; segments: Segment[] }) {
  const calls = asCalls(turn.toolCalls);
  return (
    <>
      {segments.map((s, i) =>
        s.kind === "think" ? (
          <Thinking key={i} text={s.text} />
        ) : s.kind === "text" ? (
          <div key={i} className="tv-pre tv-reply">
            {s.text}
          </div>
        ) : s.kind === "tool_call" && calls.length === 0 ? (
          // Unparsed block (parse error): show exactly what the model wrote.
          <pre key={i} className="tv-json tv-bad-block" aria-label="tool call block that failed to parse">
            {s.text}
          </pre>
        ) : null,
      )}
      {calls.map((c, i) => (
        <CallView key={c.id ?? i} name={c.name} args={c.arguments} />
      ))}
    </>
  );
}

function ToolBody({ turn, segments }: { turn: TurnRow; segments: Segment[] }) {
  const call = asCalls(turn.toolCalls)[0];
  const fidelity = asFidelity(turn.fidelity);
  const entered = turn.rehearsedResponse;
  const real = turn.realResponse;
  const generated = turn.role !== "environment" && turn.role !== "user_tool";
  return (
    <>
      {call && (
        <div className="small muted">
          {turn.role === "user_tool" ? "the user called " : "answers "}
          <span className="tv-call-name">{call.name}</span>
          {call.id ? ` (${call.id})` : ""}
        </div>
      )}
      {entered != null && real != null ? (
        <ResponseDiff rehearsed={entered} real={real} fidelity={fidelity} />
      ) : (
        <div className="tv-single">
          <div className="small muted">{generated ? "Rehearsed response (no real response recorded)" : turn.role === "user_tool" ? "The user's device answered" : "Environment response"}</div>
          <pre className="tv-json">{prettyJson(entered ?? real ?? turn.text)}</pre>
        </div>
      )}
      {generated && (
        <details className="tv-think">
          <summary>Raw {turn.role} output</summary>
          {segments.map((s, i) =>
            s.kind === "think" ? (
              <div key={i} className="tv-pre muted">
                {`<think> ${s.text}`}
              </div>
            ) : (
              <div key={i} className="tv-pre">
                {s.text}
              </div>
            ),
          )}
        </details>
      )}
    </>
  );
}

/**
 * What a turn's error code is: the policy's own parse error (act, rehearse) or a failure of what answered
 * it — the user simulator, the environment, the tool simulator, the policy node.
 */
export function turnErrorLabel(turn: Pick<TurnRow, "role" | "errorCode">): string {
  if (turn.errorCode === "GENERATION_FAILED") return "generation failed";
  if (turn.role === "user") return "user simulator error";
  if (turn.role === "environment") return "environment error";
  if (turn.role === "simulator") return "tool simulator error";
  return "parse error";
}

export interface TurnCardProps {
  turn: TurnRow;
  verdicts: VerdictRow[];
  current: boolean;
  terminationReason: string | null;
  /** On the last turn of an episode that errored: why it could not run (trajectory.errorCause). */
  errorCause?: string | null;
  /** Prefix of the card's id and anchor when a page shows several timelines (ids stay unique). */
  anchorPrefix?: string;
}

/** One turn of the timeline; id="turn-N" is the deep-link target. */
export const TurnCard = memo(function TurnCard({ turn, verdicts, current, terminationReason, errorCause, anchorPrefix = "" }: TurnCardProps) {
  const segments = useMemo(() => splitOutput(turn.text), [turn.text]);
  const isTool = toolRoles.has(turn.role);
  return (
    <article
      id={`${anchorPrefix}turn-${turn.index}`}
      data-turn={turn.index}
      data-testid="turn"
      tabIndex={-1}
      className={`tv-turn role-${turn.role}${current ? " current" : ""}${turn.errorCode ? " has-error" : ""}`}
      aria-current={current ? "step" : undefined}
    >
      <header className="tv-turn-head">
        <a className="tv-anchor" href={`#${anchorPrefix}turn-${turn.index}`} aria-label={`link to turn ${turn.index}`}>
          #{turn.index}
        </a>
        <span className={`tv-role role-${turn.role}`}>{turn.role}</span>
        {turn.role !== "user" && (
          <span className="small muted" title="prompt tokens / response tokens">
            {turn.promptTokens.toLocaleString()} → {turn.responseTokens.toLocaleString()} tok
          </span>
        )}
        <Advantage value={turn.advantage} />
        {turn.errorCode && (
          <span className="tv-err" role="note" data-testid="parse-error">
            {turnErrorLabel(turn)}: {turn.errorCode}
          </span>
        )}
      </header>
      <div className="tv-turn-body">
        {turn.role === "act" ? (
          <ActBody turn={turn} segments={segments} />
        ) : isTool ? (
          <ToolBody turn={turn} segments={segments} />
        ) : (
          <div className="tv-pre">{turn.text}</div>
        )}
      </div>
      <Verdicts verdicts={verdicts} />
      {terminationReason && (
        <div className="tv-termination" role="note" data-testid="termination">
          ■ rollout ended here: {terminationReason}
          {errorCause ? (
            <>
              {" "}
              — <span data-testid="termination-cause">{errorCause}</span>
            </>
          ) : null}
        </div>
      )}
    </article>
  );
});
