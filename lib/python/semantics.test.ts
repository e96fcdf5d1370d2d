/**
 * lib/python against CPython itself: test/fixtures/python/semantics.json was written by
 * scripts/bfcl/make_python_semantics.py (CPython 3.11, mpmath 1.3 pure-Python backend).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { pyIn, pyLen, pyMinMax, pyStrip, pySum, splitlines, splitWhitespace } from "./builtins";
import { PyDateTime, strptime } from "./datetime";
import { PyDecimal, validatePrecision } from "./decimal";
import { MpContext, mpDiv, mpLog } from "./mpmath";
import { formatFixed, pyAbs, pyAdd, pyFloat, pyFloorDiv, pyInt, pyMod, pyMul, pyNeg, pyPow, pyRound, pySub, pyTrueDiv } from "./numbers";
import { PyRandom } from "./random";
import { parseExpression, UnsupportedSyntax, type Expr } from "./syntax";
import { PyDict, pyCompare, pyEq, PyException, pyJsonDumpsValue, pyRepr, PySet, pyStr, PyTuple, type PyValue } from "./values";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = JSON.parse(readFileSync(path.resolve(here, "../../test/fixtures/python/semantics.json"), "utf8"));

/** Evaluates the literal expressions of the fixture (literals, arithmetic, `float(...)`). */
function evaluate(e: Expr): PyValue {
  switch (e.kind) {
    case "const":
      return e.value;
    case "list":
      return e.items.map(evaluate);
    case "tuple":
      return new PyTuple(e.items.map(evaluate));
    case "set":
      return PySet.of(e.items.map(evaluate));
    case "dict":
      return PyDict.of(e.entries.map(([k, v]) => [evaluate(k), evaluate(v)] as [PyValue, PyValue]));
    case "unary":
      return e.op === "-" ? pyNeg(evaluate(e.operand)) : evaluate(e.operand);
    case "binary": {
      const ops = { "+": pyAdd, "-": pySub, "*": pyMul, "/": pyTrueDiv, "//": pyFloorDiv, "%": pyMod, "**": pyPow };
      return ops[e.op](evaluate(e.left), evaluate(e.right));
    }
    case "call":
      if (e.func.kind === "name" && e.func.id === "float") return pyFloat(evaluate(e.args[0]));
      throw new Error(`unexpected call in fixture: ${JSON.stringify(e)}`);
    default:
      throw new Error(`unexpected expression in fixture: ${e.kind}`);
  }
}
const value = (src: string) => evaluate(parseExpression(src));

function outcome(fn: () => string): { ok: string } | { error: string } {
  try {
    return { ok: fn() };
  } catch (err) {
    if (err instanceof PyException) return { error: `${err.pyType}: ${err.pyMessage}` };
    throw err;
  }
}

describe("repr, str and json.dumps", () => {
  for (const entry of fixture.literals) {
    it(entry.src, () => {
      const v = value(entry.src);
      expect(pyRepr(v)).toBe(entry.repr);
      expect(pyStr(v)).toBe(entry.str);
      if (entry.json !== undefined) expect(pyJsonDumpsValue(v)).toBe(entry.json);
      else expect(() => pyJsonDumpsValue(v)).toThrow(entry.json_error.replace(/^TypeError: /, ""));
    });
  }
});

describe("SyntaxError messages of eval()", () => {
  it("match CPython for the calibrated call strings", () => {
    const got = fixture.syntax.map((entry: { src: string }) => {
      try {
        parseExpression(entry.src);
        return { src: entry.src, result: "OK" };
      } catch (err) {
        if (err instanceof PyException) return { src: entry.src, result: `SyntaxError: ${err.pyMessage}` };
        // Valid Python outside the evaluated subset: the syntax itself was accepted.
        if (err instanceof UnsupportedSyntax) return { src: entry.src, result: "OK" };
        throw err;
      }
    });
    expect(got).toEqual(fixture.syntax);
  });
});

describe("random.Random", () => {
  for (const spec of fixture.random) {
    it(`seed ${spec.seed}`, () => {
      const r = new PyRandom(BigInt(spec.seed));
      const out = spec.ops.map((op: unknown[]) => {
        switch (op[0]) {
          case "randint":
            return r.randint(BigInt(op[1] as number), BigInt(op[2] as number)).toString();
          case "random":
            return pyRepr(r.random());
          case "uniform":
            return pyRepr(r.uniform(op[1] as number, op[2] as number));
          case "getrandbits":
            return r.getrandbits(op[1] as number).toString();
          case "choice":
            return pyRepr(r.choice(op[1] as string[]));
          default: {
            const items = (op[1] as number[]).map((n) => BigInt(n));
            r.shuffle(items);
            return pyRepr(items);
          }
        }
      });
      expect(out).toEqual(spec.out);
    });
  }
});

describe("numbers and built-ins", () => {
  const fns: Record<string, (...a: PyValue[]) => PyValue> = {
    round: (a, b) => pyRound(a, b),
    float: pyFloat,
    int: pyInt,
    format2: (a) => formatFixed(a, 2),
    add: pyAdd,
    sub: pySub,
    mul: pyMul,
    truediv: pyTrueDiv,
    floordiv: pyFloorDiv,
    mod: pyMod,
    pow: pyPow,
    abs: pyAbs,
    neg: pyNeg,
    min: (a) => pyMinMax(a, "min"),
    max: (a) => pyMinMax(a, "max"),
    sum: pySum,
    lt: (a, b) => pyCompare(a, "<", b),
    eq: (a, b) => pyEq(a, b),
    in: (a, b) => pyIn(a, b),
    len: (a) => BigInt(pyLen(a)),
  };
  for (const entry of fixture.numbers) {
    it(`${entry.fn}(${entry.args.join(", ")})`, () => {
      const args = entry.args.map(value);
      const got = outcome(() => {
        const r = fns[entry.fn](...args);
        return typeof r === "string" && entry.fn === "format2" ? pyRepr(r) : pyRepr(r);
      });
      expect(got).toEqual(entry.ok !== undefined ? { ok: entry.ok } : { error: entry.error });
    });
  }
});

describe("Decimal.sqrt", () => {
  for (const entry of fixture.decimal_sqrt) {
    it(`sqrt(${entry.value}) at prec ${entry.prec}`, () => {
      const got = outcome(() => {
        const v = value(entry.value);
        if (pyCompare(v, "<", 0n)) return "negative";
        return PyDecimal.from(v).sqrt(validatePrecision(value(entry.prec))).repr();
      });
      expect(got).toEqual(entry.ok !== undefined ? { ok: entry.ok } : { error: entry.error });
    });
  }
});

describe("mpmath log(value) / log(base)", () => {
  for (const entry of fixture.mplog) {
    it(`dps ${entry.dps}: log(${entry.value}) / log(${entry.base})`, () => {
      const ctx = new MpContext();
      const got = outcome(() => {
        ctx.setDps(value(entry.dps));
        return mpDiv(mpLog(value(entry.value), ctx), mpLog(value(entry.base), ctx), ctx).repr();
      });
      expect(got).toEqual(entry.ok !== undefined ? { ok: entry.ok } : { error: entry.error });
    });
  }
});

describe("datetime", () => {
  it("strptime parses and fails like CPython", () => {
    for (const entry of fixture.strptime) {
      const got = outcome(() => strptime(entry.text, entry.format).str());
      expect(got, `${entry.text} / ${entry.format}`).toEqual(entry.ok !== undefined ? { ok: entry.ok } : { error: entry.error });
    }
  });
  it("strftime and fromtimestamp (UTC) format like CPython", () => {
    for (const entry of fixture.strftime) {
      const [y, m, d, H, M, S] = entry.fields;
      expect(new PyDateTime(y, m, d, H, M, S).strftime(entry.format)).toBe(entry.ok);
    }
    for (const entry of fixture.fromtimestamp) expect(PyDateTime.fromTimestamp(entry.ts).strftime("%Y-%m-%d %H:%M:%S")).toBe(entry.ok);
  });
});

describe("str methods", () => {
  it("splitlines, split, lower and strip follow Python's Unicode rules", () => {
    const impl: Record<string, (s: string) => PyValue> = {
      splitlines,
      split: splitWhitespace,
      lower: (s) => s.toLowerCase(),
      strip: (s) => pyStrip(s, null, "both"),
    };
    for (const entry of fixture.strings) expect(pyRepr(impl[entry.fn](value(entry.src) as string)), entry.src).toBe(entry.ok);
  });
});
