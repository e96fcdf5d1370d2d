/**
 * The part of mpmath (1.3, pure-Python backend) that BFCL's MathAPI.logarithm uses:
 * `mp.dps = n`, `mpmath.log(x)` for ints, floats and numeric strings (complex results for negative
 * input), `/` between the results, and `repr` of `mpf`/`mpc` (mpmath's `to_str` at `repr_dps(prec)`).
 *
 * Logarithms and π are correctly rounded to the working precision (mpmath rounds from 20+ guard
 * bits, so the two agree except on astronomically rare boundary cases); divisions are exact-rounded
 * like `mpf_div`.
 */
import * as bf from "./bigfloat";
import { pyFloat, pyInt } from "./numbers";
import { isInt, intValue, PyException, PyObject, pyRepr, type PyValue } from "./values";

const LOG2_10 = 3.3219280948873626; // math.log(10, 2) in CPython

/** Python's round(x) for a double (half to even), as an integer. */
function pyRoundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5 || (d === 0.5 && f % 2 !== 0)) return f + 1;
  return f;
}

export function dpsToPrec(n: number): number {
  return Math.max(1, pyRoundHalfEven((n + 1) * LOG2_10));
}
export function precToDps(n: number): number {
  return Math.max(1, pyRoundHalfEven(n / LOG2_10) - 1);
}
export function reprDps(prec: number): number {
  const dps = precToDps(prec);
  return dps === 15 ? 17 : dps + 3;
}

/** The largest working precision we compute (mpmath would grind for minutes beyond it). */
export const MAX_PREC_BITS = 200_000;

/** mpmath's global context (`mp`): precision in bits. */
export class MpContext {
  prec = 53;

  /** `mp.dps = value` (mpmath: `prec = dps_to_prec(int(value))`). */
  setDps(value: PyValue): void {
    const n = pyInt(value);
    const asNumber = Number(n);
    if (!Number.isFinite(asNumber * LOG2_10)) throw new PyException("OverflowError", "int too large to convert to float");
    this.prec = dpsToPrec(asNumber);
  }
}

export class Mpf extends PyObject {
  readonly pyType = "mpf";
  constructor(
    readonly value: bf.BigFloat,
    /** `repr` uses the context's precision at the time it is printed; BFCL prints right away. */
    readonly reprDigits: number,
  ) {
    super();
  }
  repr(): string {
    return `mpf('${toStr(this.value, this.reprDigits)}')`;
  }
  truthy(): boolean {
    return this.value.special !== "zero";
  }
}

export class Mpc extends PyObject {
  readonly pyType = "mpc";
  constructor(
    readonly re: bf.BigFloat,
    readonly im: bf.BigFloat,
    readonly reprDigits: number,
  ) {
    super();
  }
  repr(): string {
    return `mpc(real='${toStr(this.re, this.reprDigits)}', imag='${toStr(this.im, this.reprDigits)}')`;
  }
}

/** `mpmathify(x)`: exact for ints and floats, rounded to `prec` for numeric strings. */
function convert(x: PyValue, prec: number): bf.BigFloat {
  if (isInt(x)) return bf.fromInt(intValue(x));
  if (typeof x === "number") return bf.fromFloat(x);
  if (x instanceof Mpf) return x.value;
  if (typeof x === "string") {
    const s = x.toLowerCase().trim();
    const specials: Record<string, bf.BigFloat> = { inf: bf.INF, "+inf": bf.INF, "-inf": bf.NINF, nan: bf.NAN };
    if (s in specials) return specials[s];
    const rational = /^([+-]?\d+)\/([+-]?\d+)$/.exec(s);
    if (rational) return bf.div(bf.fromInt(BigInt(rational[1])), bf.fromInt(BigInt(rational[2])), prec, "n");
    let ok = true;
    try {
      pyFloat(s);
    } catch {
      ok = false;
    }
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/.exec(s.replace(/_/g, ""));
    if (ok && m && (m[2] || m[3])) {
      const digits = BigInt((m[2] || "") + (m[3] || "") || "0");
      const exp10 = Number(m[4] ?? "0") - (m[3] ?? "").length;
      const man = m[1] === "-" ? -digits : digits;
      if (exp10 >= 0) return bf.round(bf.fromInt(man * 10n ** BigInt(exp10)), prec, "n");
      return bf.div(bf.fromInt(man), bf.fromInt(10n ** BigInt(-exp10)), prec, "n");
    }
  }
  throw new PyException("TypeError", `cannot create mpf from ${pyRepr(x)}`);
}

type MpValue = { kind: "real"; v: bf.BigFloat } | { kind: "complex"; re: bf.BigFloat; im: bf.BigFloat };

/** `mpmath.log(x)` at the context precision. */
export function mpLog(x: PyValue, ctx: MpContext): MpValue {
  const v = convert(x, Math.min(ctx.prec, MAX_PREC_BITS));
  // mpmath would grind for minutes; refuse only once there is something to compute.
  if (ctx.prec > MAX_PREC_BITS) throw new PyException("MemoryError", "");
  if (v.special) {
    if (v.special === "zero") return { kind: "real", v: bf.NINF };
    if (v.special === "inf") return { kind: "real", v: bf.INF };
    if (v.special === "nan") return { kind: "real", v: bf.NAN };
    // log(-inf) = +inf + πi
    return { kind: "complex", re: bf.INF, im: bf.pi(ctx.prec, "n") };
  }
  if (v.sign) return { kind: "complex", re: bf.ln({ ...v, sign: 0 }, ctx.prec, "n"), im: bf.pi(ctx.prec, "n") };
  return { kind: "real", v: bf.ln(v, ctx.prec, "n") };
}

const zeroDivision = () => new PyException("ZeroDivisionError", "");

function divChecked(a: bf.BigFloat, b: bf.BigFloat, prec: number, rnd: bf.Rounding): bf.BigFloat {
  try {
    return bf.div(a, b, prec, rnd);
  } catch (err) {
    if (err instanceof bf.DivisionByZero) throw zeroDivision();
    throw err;
  }
}

/** `a / b` between log results (mpf / mpf, mpc / mpf, mpf / mpc, mpc / mpc) as mpmath computes it. */
export function mpDiv(a: MpValue, b: MpValue, ctx: MpContext): Mpf | Mpc {
  const prec = ctx.prec;
  const digits = reprDps(prec);
  if (a.kind === "real" && b.kind === "real") return new Mpf(divChecked(a.v, b.v, prec, "n"), digits);
  if (a.kind === "complex" && b.kind === "real") {
    return new Mpc(divChecked(a.re, b.v, prec, "n"), divChecked(a.im, b.v, prec, "n"), digits);
  }
  if (a.kind === "real" && b.kind === "complex") {
    // mpc_mpf_div(p, z): m = c² + d² (rounded down at prec+10); (c·p)/m, −(d·p)/m
    const m = bf.add(bf.mul(b.re, b.re), bf.mul(b.im, b.im), prec + 10, "d");
    return new Mpc(divChecked(bf.mul(b.re, a.v), m, prec, "n"), divChecked(bf.neg(bf.mul(b.im, a.v)), m, prec, "n"), digits);
  }
  const z = a as { re: bf.BigFloat; im: bf.BigFloat };
  const w = b as { re: bf.BigFloat; im: bf.BigFloat };
  // mpc_div: wp = prec + 10, additions rounded down (round_fast)
  const wp = prec + 10;
  const mag = bf.add(bf.mul(w.re, w.re), bf.mul(w.im, w.im), wp, "d");
  const t = bf.add(bf.mul(z.re, w.re), bf.mul(z.im, w.im), wp, "d");
  const u = bf.add(bf.mul(z.im, w.re), bf.neg(bf.mul(z.re, w.im)), wp, "d");
  return new Mpc(divChecked(t, mag, prec, "n"), divChecked(u, mag, prec, "n"), digits);
}

// ---------------------------------------------------------------------------------------------------------------
// to_str (mpmath.libmp.libmpf)

function toDigitsExp(v: bf.BigFloat, dps: number): { sign: string; digits: string; exponent: number } {
  const sign = v.sign ? "-" : "";
  const man = v.man;
  const exp = v.exp;
  const bc = bf.bitLength(man);
  const bitprec = Math.trunc(dps * LOG2_10) + 10;
  let exponent = 0;
  if (Math.abs(exp + bc) > 3500) throw new Error("mpmath to_str: exponents beyond 3500 bits are not supported");
  const fixprec = Math.max(bitprec - exp - bc, 0);
  const fixdps = Math.trunc(fixprec / LOG2_10 + 0.5);
  const offset = exp + fixprec;
  const sf = offset >= 0 ? man << BigInt(offset) : man >> BigInt(-offset);
  const sd = (sf * 10n ** BigInt(fixdps)) >> BigInt(fixprec);
  const digits = sd.toString();
  exponent += digits.length - fixdps - 1;
  return { sign, digits, exponent };
}

/** mpmath's `to_str(s, dps)` with default arguments. */
export function toStr(v: bf.BigFloat, dps: number): string {
  if (v.special) {
    if (v.special === "zero") return dps ? "0.0" : ".0";
    if (v.special === "inf") return "+inf";
    if (v.special === "-inf") return "-inf";
    return "nan";
  }
  const minFixed = Math.min(-Math.floor(dps / 3), -5);
  const maxFixed = dps;
  let { sign, digits, exponent } = toDigitsExp(v, dps + 3);
  if (!dps) {
    if ("56789".includes(digits[0])) exponent += 1;
    digits = ".0";
  } else {
    if (digits.length > dps && "56789".includes(digits[dps])) {
      digits = digits.slice(0, dps);
      let i = dps - 1;
      while (i >= 0 && digits[i] === "9") i--;
      if (i >= 0) digits = digits.slice(0, i) + String(Number(digits[i]) + 1) + "0".repeat(dps - i - 1);
      else {
        digits = "1" + "0".repeat(dps - 1);
        exponent += 1;
      }
    } else digits = digits.slice(0, dps);
    let split: number;
    if (minFixed < exponent && exponent < maxFixed) {
      if (exponent < 0) {
        digits = "0".repeat(-exponent) + digits;
        split = 1;
      } else {
        split = exponent + 1;
        if (split > dps) digits += "0".repeat(split - dps);
      }
      exponent = 0;
    } else split = 1;
    digits = digits.slice(0, split) + "." + digits.slice(split);
    digits = digits.replace(/0+$/, "");
    if (digits.endsWith(".")) digits += "0";
  }
  if (exponent === 0 && dps) return sign + digits;
  if (exponent >= 0) return sign + digits + "e+" + exponent;
  return sign + digits + "e" + exponent;
}
