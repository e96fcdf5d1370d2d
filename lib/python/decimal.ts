/**
 * The part of Python's `decimal` module that BFCL's MathAPI.square_root uses: `Decimal(x)` from an
 * int, float (exact binary value) or str, `Decimal.sqrt()` under a context precision (correctly
 * rounded, half to even, with the ideal exponent for exact roots — CPython's algorithm), and
 * `repr`/`str` (to-scientific-string).
 */
import { bitLength, fromFloat } from "./bigfloat";
import { intValue, isInt, PyException, PyObject, pyTypeName, typeError, valueError, type PyValue } from "./values";

/** decimal.InvalidOperation (a subclass of ArithmeticError in Python). */
export const invalidOperation = (what: string) => new PyException("InvalidOperation", `[<class 'decimal.${what}'>]`);

export const MAX_PREC = 999999999999999999n;
const EMAX = 999999;
const EMIN = -999999;

export class PyDecimal extends PyObject {
  readonly pyType = "Decimal";
  constructor(
    readonly sign: 0 | 1,
    /** Coefficient digits (≥ 0); `null` for NaN/Infinity. */
    readonly coeff: bigint | null,
    readonly exp: number,
    readonly special?: "NaN" | "Infinity",
  ) {
    super();
  }

  /** `Decimal(value)`. */
  static from(value: PyValue): PyDecimal {
    if (isInt(value)) {
      const n = intValue(value);
      return new PyDecimal(n < 0n ? 1 : 0, n < 0n ? -n : n, 0);
    }
    if (typeof value === "number") {
      if (Number.isNaN(value)) return new PyDecimal(0, null, 0, "NaN");
      if (!Number.isFinite(value)) return new PyDecimal(value < 0 ? 1 : 0, null, 0, "Infinity");
      const sign = value < 0 || Object.is(value, -0) ? 1 : 0;
      const v = fromFloat(Math.abs(value));
      if (v.special) return new PyDecimal(sign, 0n, 0);
      if (v.exp >= 0) return new PyDecimal(sign, v.man << BigInt(v.exp), 0);
      return new PyDecimal(sign, v.man * 5n ** BigInt(-v.exp), v.exp);
    }
    if (typeof value === "string") return PyDecimal.parse(value);
    throw typeError(`conversion from ${pyTypeName(value)} to Decimal is not supported`);
  }

  static parse(text: string): PyDecimal {
    const s = text.trim().replace(/_/g, "");
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
    if (special) return new PyDecimal(special[1] === "-" ? 1 : 0, null, 0, special[2].toLowerCase() === "nan" ? "NaN" : "Infinity");
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
    if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw invalidOperation("ConversionSyntax");
    const intPart = m[2];
    const frac = m[3] ?? "";
    return new PyDecimal(m[1] === "-" ? 1 : 0, BigInt((intPart + frac) || "0"), Number(m[4] ?? "0") - frac.length);
  }

  isZero(): boolean {
    return this.coeff === 0n;
  }

  /** `self.sqrt()` under a context of `prec` digits with ROUND_HALF_EVEN. */
  sqrt(prec: number): PyDecimal {
    if (this.special === "NaN") return this;
    if (this.special === "Infinity") {
      if (this.sign) throw invalidOperation("InvalidOperation");
      return this;
    }
    const coeff = this.coeff!;
    if (coeff === 0n) return new PyDecimal(this.sign, 0n, this.exp >> 1).fix(prec);
    if (this.sign) throw invalidOperation("InvalidOperation");

    const digitsLen = coeff.toString().length;
    const wprec = prec + 1;
    let e = this.exp >> 1;
    let c: bigint;
    let l: number;
    if (this.exp & 1) {
      c = coeff * 10n;
      l = (digitsLen >> 1) + 1;
    } else {
      c = coeff;
      l = (digitsLen + 1) >> 1;
    }
    const shift = wprec - l;
    let exact: boolean;
    if (shift >= 0) {
      c *= 100n ** BigInt(shift);
      exact = true;
    } else {
      const d = 100n ** BigInt(-shift);
      exact = c % d === 0n;
      c = c / d;
    }
    e -= shift;
    // n = floor(sqrt(c)) by Newton's method from 10**prec, as CPython does.
    let n = 10n ** BigInt(wprec);
    for (;;) {
      const q = c / n;
      if (n <= q) break;
      n = (n + q) >> 1n;
    }
    exact = exact && n * n === c;
    if (exact) {
      if (shift >= 0) n /= 10n ** BigInt(shift);
      else n *= 10n ** BigInt(-shift);
      e += shift;
    } else if (n % 5n === 0n) n += 1n;
    return new PyDecimal(0, n, e).fix(prec);
  }

  /** `_fix`: round to `prec` digits, half to even (exponent limits of the default context). */
  fix(prec: number): PyDecimal {
    if (this.special || this.coeff === null) return this;
    const etiny = EMIN - prec + 1;
    if (this.coeff === 0n) {
      const exp = Math.min(Math.max(this.exp, etiny), EMAX);
      return exp === this.exp ? this : new PyDecimal(this.sign, 0n, exp);
    }
    const digits = this.coeff.toString();
    const len = digits.length;
    let expMin = Math.max(len + this.exp - prec, etiny);
    if (this.exp >= expMin) return this;
    let keep = len + this.exp - expMin;
    let coeffText = digits;
    if (keep < 0) {
      coeffText = "1";
      keep = 0;
    }
    const kept = coeffText.slice(0, keep) || "0";
    const rest = coeffText.slice(keep);
    let up = false;
    if (rest.length > 0) {
      const first = rest[0];
      const tailNonZero = /[1-9]/.test(rest.slice(1));
      if (first > "5" || (first === "5" && tailNonZero)) up = true;
      else if (first === "5" && !tailNonZero) up = Number(kept[kept.length - 1]) % 2 === 1;
    }
    let coeff = BigInt(kept);
    if (up) {
      coeff += 1n;
      if (coeff.toString().length > prec) {
        coeff /= 10n;
        expMin += 1;
      }
    }
    return new PyDecimal(this.sign, coeff, expMin);
  }

  /** to-scientific-string (`str(Decimal)`). */
  str(): string {
    const sign = this.sign ? "-" : "";
    if (this.special) return sign + this.special;
    const digits = this.coeff!.toString();
    const leftdigits = this.exp + digits.length;
    const dotplace = this.exp <= 0 && leftdigits > -6 ? leftdigits : 1;
    let intpart: string;
    let fracpart: string;
    if (dotplace <= 0) {
      intpart = "0";
      fracpart = "." + "0".repeat(-dotplace) + digits;
    } else if (dotplace >= digits.length) {
      intpart = digits + "0".repeat(dotplace - digits.length);
      fracpart = "";
    } else {
      intpart = digits.slice(0, dotplace);
      fracpart = "." + digits.slice(dotplace);
    }
    const e = leftdigits - dotplace;
    const exp = leftdigits === dotplace ? "" : "E" + (e >= 0 ? "+" : "-") + Math.abs(e);
    return sign + intpart + fracpart + exp;
  }

  repr(): string {
    return `Decimal('${this.str()}')`;
  }

  truthy(): boolean {
    return this.special !== undefined || this.coeff !== 0n;
  }

  hashKey(): string {
    return "Decimal:" + this.str();
  }
}

/** `getcontext().prec = value` validation: returns the new precision or raises like CPython. */
export function validatePrecision(value: PyValue): number {
  if (!isInt(value)) throw typeError("an integer is required");
  const n = intValue(value);
  if (bitLength(n) > 63) throw new PyException("OverflowError", "Python int too large to convert to C ssize_t");
  if (n < 1n || n > MAX_PREC) throw valueError("valid range for prec is [1, MAX_PREC]");
  // CPython would try to compute millions of digits; refuse instead of hanging the worker.
  if (n > 1_000_000n) throw new PyException("MemoryError", "");
  return Number(n);
}
