/**
 * npm run -s finmcp:score -- --samples S.json --predictions P.json
 *   S.json: JSON array of samples in the upstream layout (shared docs finmcp.md).
 *   P.json: JSON array, same length and order as S.json; element i = {"messages_pred": [...]} plus optional
 *     "error" / "error_message", laid over sample i; messages_pred is required.
 *   stdout: one JSON object
 *     {"overall": M, "scenario": {key: M}, "difficulty": {key: M}, "task": {key: M},
 *      "samples": [{"index", "TP", "FP", "FN", "consist", "class_Level1", "class_difficulty", "task"}]}
 *     M = {"macro_Precision", "macro_Recall", "macro_F1", "micro_Precision", "micro_Recall", "micro_F1", "N", "consist_mean"};
 *     written as Python's json.dumps(…, ensure_ascii=False) writes it (ints and floats as upstream computes them).
 *   Exit 2 on bad input (the message names the file and the JSON path), 1 where upstream's evaluation.py would stop.
 */
import { readFileSync } from "node:fs";
import { JsonSyntaxError, parseOrderedJson, PyInt, pyJsonDumps, type OrderedJson } from "../../../../lib/python/json";
import { blockJson, computeMetrics, FinmcpAbort, scoreRecords, type FinmcpMetricBlock } from "../scoring";

export class FinmcpInputError extends Error {}

function readJson(file: string, flag: string): OrderedJson {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new FinmcpInputError(`${flag} ${file}: ${(e as Error).message}`);
  }
  try {
    return parseOrderedJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new FinmcpInputError(`${file}: not valid JSON (${e.message})`);
    throw e;
  }
}

/** Each sample with its prediction laid over it (the prediction's keys win, as a Python dict update). */
export function overlay(samples: OrderedJson, predictions: OrderedJson, files: { samples: string; predictions: string }): Map<string, OrderedJson>[] {
  if (!Array.isArray(samples)) throw new FinmcpInputError(`${files.samples}: a JSON array of samples is expected`);
  if (!Array.isArray(predictions)) throw new FinmcpInputError(`${files.predictions}: a JSON array of predictions is expected`);
  if (samples.length !== predictions.length) {
    throw new FinmcpInputError(`${files.predictions}: ${predictions.length} predictions for ${samples.length} samples in ${files.samples} (same length and order)`);
  }
  return samples.map((s, i) => {
    if (!(s instanceof Map)) throw new FinmcpInputError(`${files.samples}[${i}]: a sample is a JSON object`);
    const p = predictions[i];
    if (!(p instanceof Map)) throw new FinmcpInputError(`${files.predictions}[${i}]: a prediction is a JSON object {"messages_pred": [...]}`);
    if (!Array.isArray(p.get("messages_pred"))) throw new FinmcpInputError(`${files.predictions}[${i}].messages_pred: required, a JSON array of messages`);
    const record = new Map(s);
    for (const [k, v] of p) record.set(k, v);
    return record;
  });
}

const blocks = (m: Map<string, FinmcpMetricBlock>) => new Map<string, OrderedJson>([...m].map(([k, b]) => [k, blockJson(b)]));

/** The command's output for already-overlaid records. */
export function scoreOutput(records: Map<string, OrderedJson>[]): string {
  const { scored } = scoreRecords(records);
  const m = computeMetrics(scored);
  const out = new Map<string, OrderedJson>([
    ["overall", blockJson(m.overall)],
    ["scenario", blocks(m.scenario)],
    ["difficulty", blocks(m.difficulty)],
    ["task", blocks(m.task)],
    [
      "samples",
      scored.map(
        (r) =>
          new Map<string, OrderedJson>([
            ["index", new PyInt(r.index)],
            ["TP", new PyInt(r.TP)],
            ["FP", new PyInt(r.FP)],
            ["FN", new PyInt(r.FN)],
            ["consist", new PyInt(r.consist)],
            ["class_Level1", r.classLevel1],
            ["class_difficulty", r.difficultyValue],
            ["task", r.task],
          ]),
      ),
    ],
  ]);
  return pyJsonDumps(out, { ensureAscii: false });
}

export function runScore(argv: readonly string[]): { code: number; stdout: string; stderr: string } {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const samples = arg("--samples");
  const predictions = arg("--predictions");
  if (!samples || !predictions) return { code: 2, stdout: "", stderr: "usage: finmcp:score --samples S.json --predictions P.json\n" };
  try {
    const records = overlay(readJson(samples, "--samples"), readJson(predictions, "--predictions"), { samples, predictions });
    return { code: 0, stdout: `${scoreOutput(records)}\n`, stderr: "" };
  } catch (e) {
    if (e instanceof FinmcpInputError) return { code: 2, stdout: "", stderr: `${e.message}\n` };
    if (e instanceof FinmcpAbort) return { code: 1, stdout: "", stderr: `${e.message}\n` };
    throw e;
  }
}

if (process.argv[1]?.endsWith("score.ts")) {
  const r = runScore(process.argv.slice(2));
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
}
