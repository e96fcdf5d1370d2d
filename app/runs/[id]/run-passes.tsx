"use client";
/** An evaluation's independent passes: each pass's headline metrics, then their mean ± std and min–max (Avg@k as the paper reports it). */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { formatTime } from "../../_lib/format";

const fmt = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(3));

export function RunPasses({ runId, passes }: { runId: string; passes: number }) {
  const trpc = useTRPC();
  const data = useQuery(trpc.runs.passes.queryOptions({ runId }));
  if (data.error) return <p role="alert" className="error">{data.error.message}</p>;
  if (!data.data) return null;
  const { keys, spread } = data.data;
  return (
    <section aria-labelledby="run-passes-heading">
      <h2 id="run-passes-heading">Independent passes</h2>
      <p className="muted small">
        {data.data.passes.length} of {passes} passes committed, each sampled with its own seed. The mean over the passes is the paper&apos;s Avg@k; the spread is the sample
        standard deviation and the lowest and highest pass.
      </p>
      <table className="table" data-testid="run-passes">
        <thead>
          <tr>
            <th scope="col">Pass</th>
            {keys.map((k) => (
              <th scope="col" className="num" key={k}>
                {k}
              </th>
            ))}
            <th scope="col">Committed</th>
          </tr>
        </thead>
        <tbody>
          {data.data.passes.map((p) => (
            <tr key={p.pass}>
              <td>{p.pass}</td>
              {keys.map((k) => (
                <td className="num" key={k}>
                  {fmt(p.metrics[k])}
                </td>
              ))}
              <td>{formatTime(p.finishedAt)}</td>
            </tr>
          ))}
          <tr data-testid="run-passes-mean">
            <th scope="row">mean ± std (min–max)</th>
            {keys.map((k) => {
              const s = spread[k];
              return (
                <td className="num" key={k}>
                  {s ? `${fmt(s.mean)} ± ${fmt(s.std)} (${fmt(s.min)}–${fmt(s.max)})` : "—"}
                </td>
              );
            })}
            <td />
          </tr>
        </tbody>
      </table>
    </section>
  );
}
