/**
 * Prompting-style Python replies (`[f(a=1), g(b='x')]`) decoded with the multi-turn port's call parser: the
 * ground truth written as code passes the AST checker on every Python AST category (bar upstream's own
 * unreachable answers), and text that is not a call list fails to decode with a message.
 */
import { describe, expect, it } from "vitest";
import { hasBfclData } from "../../../../test/fixtures/bfcl-data";
import { decodePythonCallText } from "./decode";
import { loadSingleTurnCategory } from "./data";
import { evaluateAstEntry } from "./evaluate";
import { oracleOutput } from "./oracle";
import { PyDict, pyRepr, pyStr } from "./values";

const asCode = (calls: PyDict[]) =>
  "<think>\nWriting the calls.\n</think>\n\n```\n[" +
  calls.map((c) => { const [name, args] = c.entries()[0] as [string, PyDict]; return `${name}(${args.entries().map(([k, v]) => `${pyStr(k)}=${pyRepr(v)}`).join(", ")})`; }).join(", ") +
  "]\n```";

describe("prompting-style Python replies", () => {
  it("decode to {name: {keyword: value}} and fail with a message otherwise", () => {
    const d = decodePythonCallText("[math.hypot(x=3, y=-4.5, opts={'a': [1, (2, 3)]}), f()]");
    expect(d.ok && (d.value as PyDict[]).map((c) => pyRepr(c))).toEqual(["{'math.hypot': {'x': 3, 'y': -4.5, 'opts': {'a': [1, (2, 3)]}}}", "{'f': {}}"]);
    expect(decodePythonCallText("I cannot help with that.").ok).toBe(false);
    expect(decodePythonCallText("[f(a=1), 42]")).toEqual({ ok: false, error: "every element must be a function call" });
  });

  it.skipIf(!hasBfclData())("the ground truth written as code passes the checker on the Python AST categories", () => {
    for (const category of ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_parallel"] as const) {
      const entries = loadSingleTurnCategory(category);
      const failed = entries.filter((e) => !evaluateAstEntry(e, decodePythonCallText(asCode(oracleOutput(e.functions, e.possibleAnswer!, "python")))).valid).map((e) => e.id);
      expect([category, failed]).toEqual([category, category === "live_simple" ? ["live_simple_106-63-0", "live_simple_112-68-0"] : []]);
    }
  });
});
