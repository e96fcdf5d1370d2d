/**
 * Python number semantics over `PyValue`s: int (bigint) / float (number) / bool arithmetic with
 * Python's promotion rules and error texts, correctly rounded int true division, `float ** float`
 * (correctly rounded, like glibc), `round()`, `float()`, `int()` and `format(x, ".Nf")`.
 */
import * as bf from "./bigfloat";
import { pyFloatRepr } from "./json";
import {
  compareNumbers,
  intValue,
  isInt,
  isNumber,
  overflowError,
  PyException,
  PyObject,
  PySet,
  PyTuple,
  pyEq,
  pyStrRepr,
  pyTypeName,
  typeError,
  valueError,
  zeroDivisionError,
  type PyValue,
} from "./values";

type Num = bigint | boolean | number;

/** float(int) with Python's OverflowError. */
export function intToFloat(n: bigint): number {
  const f = Number(n);
  if (!Number.isFinite(f)) throw overflowError("int too large to convert to float");
  return f;
}

function asFloat(v: Num): number {
  return typeof v === "number" ? v : intToFloat(intValue(v));
}

const unsupported = (op: string, a: PyValue, b: PyValue) =>
  typeError(`unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);

/** A Python complex number (only produced by `negative ** fraction`). */
export class PyComplex extends PyObject {
  readonly pyType = "complex";
  constructor(
    readonly re: number,
    readonly im: number,
  ) {
    super();
  }
  repr(): string {
    const part = (x: number) => {
      const r = pyFloatRepr(x);
      return r.endsWith(".0") ? r.slice(0, -2) : r;
    };
    if (this.re === 0 && !Object.is(this.re, -0)) return part(this.im) + "j";
    const im = part(this.im);
    return `(${part(this.re)}${im.startsWith("-") || im === "nan" ? "" : "+"}${im}j)`;
  }
  eq(other: PyValue): boolean | undefined {
    if (other instanceof PyComplex) return this.re === other.re && this.im === other.im;
    if (isNumber(other)) return this.im === 0 && compareNumbers(this.re, other) === 0;
    return undefined;
  }
  truthy(): boolean {
    return this.re !== 0 || this.im !== 0;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Arithmetic

export function pyAdd(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === "number" || typeof b === "number") return asFloat(a) + asFloat(b);
    return intValue(a) + intValue(b);
  }
  if (typeof a === "string") {
    if (typeof b === "string") return a + b;
    throw typeError(`can only concatenate str (not "${pyTypeName(b)}") to str`);
  }
  if (Array.isArray(a)) {
    if (Array.isArray(b)) return [...a, ...b];
    throw typeError(`can only concatenate list (not "${pyTypeName(b)}") to list`);
  }
  if (a instanceof PyTuple) {
    if (b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
    throw typeError(`can only concatenate tuple (not "${pyTypeName(b)}") to tuple`);
  }
  throw unsupported("+", a, b);
}

export function pySub(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === "number" || typeof b === "number") return asFloat(a) - asFloat(b);
    return intValue(a) - intValue(b);
  }
  if (a instanceof PySet && b instanceof PySet) return PySet.of(a.items().filter((x) => !b.has(x)));
  throw unsupported("-", a, b);
}

function repeat(seq: string | PyValue[] | PyTuple, times: bigint): PyValue {
  const n = times < 0n ? 0 : Number(times);
  if (typeof seq === "string") return seq.repeat(n);
  const items = Array.isArray(seq) ? seq : seq.items;
  const out: PyValue[] = [];
  for (let i = 0; i < n; i++) out.push(...items);
  return Array.isArray(seq) ? out : new PyTuple(out);
}

export function pyMul(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === "number" || typeof b === "number") return asFloat(a) * asFloat(b);
    return intValue(a) * intValue(b);
  }
  const isSeq = (v: PyValue): v is string | PyValue[] | PyTuple => typeof v === "string" || Array.isArray(v) || v instanceof PyTuple;
  if (isSeq(a)) {
    if (isInt(b)) return repeat(a, intValue(b));
    throw typeError(`can't multiply sequence by non-int of type '${pyTypeName(b)}'`);
  }
  if (isSeq(b)) {
    if (isInt(a)) return repeat(b, intValue(a));
    throw typeError(`can't multiply sequence by non-int of type '${pyTypeName(a)}'`);
  }
  throw unsupported("*", a, b);
}

/** Correctly rounded int / int (CPython's long_true_divide). */
export function intTrueDiv(a: bigint, b: bigint): number {
  if (b === 0n) throw zeroDivisionError("division by zero");
  const absA = a < 0n ? -a : a;
  const absB = b < 0n ? -b : b;
  const negative = a < 0n !== b < 0n;
  if (absA < 2n ** 53n && absB < 2n ** 53n) return Number(a) / Number(b);
  if (absA === 0n) return negative ? -0 : 0;
  const k = Math.max(0, bf.bitLength(absB) - bf.bitLength(absA) + 60);
  let q = (absA << BigInt(k)) / absB;
  const sticky = (absA << BigInt(k)) % absB !== 0n ? 1n : 0n;
  q = (q << 1n) | sticky;
  const result = bf.toFloat({ sign: negative ? 1 : 0, man: q, exp: -k - 1 });
  if (!Number.isFinite(result)) throw overflowError("integer division result too large for a float");
  return result;
}

export function pyTrueDiv(a: PyValue, b: PyValue): PyValue {
  if (!isNumber(a) || !isNumber(b)) throw unsupported("/", a, b);
  if (typeof a !== "number" && typeof b !== "number") return intTrueDiv(intValue(a), intValue(b));
  const x = asFloat(a);
  const y = asFloat(b);
  if (y === 0) throw zeroDivisionError("float division by zero");
  return x / y;
}

/** Python float floor division and modulo (`divmod` semantics). */
function floatDivmod(x: number, y: number): [number, number] {
  let mod = x % y;
  let div = (x - mod) / y;
  if (mod) {
    if (y < 0 !== mod < 0) {
      mod += y;
      div -= 1;
    }
  } else mod = y < 0 ? -0 : 0;
  let floordiv: number;
  if (div) {
    floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
  } else floordiv = x / y < 0 ? -0 : 0;
  return [floordiv, mod];
}

export function pyFloorDiv(a: PyValue, b: PyValue): PyValue {
  if (!isNumber(a) || !isNumber(b)) throw unsupported("//", a, b);
  if (typeof a !== "number" && typeof b !== "number") {
    const x = intValue(a);
    const y = intValue(b);
    if (y === 0n) throw zeroDivisionError("integer division or modulo by zero");
    const q = x / y;
    return (x % y !== 0n && x < 0n !== y < 0n) ? q - 1n : q;
  }
  const y = asFloat(b);
  if (y === 0) throw zeroDivisionError("float floor division by zero");
  return floatDivmod(asFloat(a), y)[0];
}

export function pyMod(a: PyValue, b: PyValue): PyValue {
  if (!isNumber(a) || !isNumber(b)) throw unsupported("%", a, b);
  if (typeof a !== "number" && typeof b !== "number") {
    const x = intValue(a);
    const y = intValue(b);
    if (y === 0n) throw zeroDivisionError("integer modulo by zero");
    const r = x % y;
    return r !== 0n && r < 0n !== y < 0n ? r + y : r;
  }
  const y = asFloat(b);
  if (y === 0) throw zeroDivisionError("float modulo");
  return floatDivmod(asFloat(a), y)[1];
}

const MAX_INT_POW_BITS = 4_000_000;

export function pyPow(a: PyValue, b: PyValue): PyValue {
  if (!isNumber(a) || !isNumber(b)) throw unsupported("** or pow()", a, b);
  if (typeof a !== "number" && typeof b !== "number") {
    const x = intValue(a);
    const y = intValue(b);
    if (y >= 0n) {
      const bits = bf.bitLength(x) * Number(y);
      if (bits > MAX_INT_POW_BITS) throw new PyException("MemoryError", "");
      return x ** y;
    }
    if (x === 0n) throw zeroDivisionError("0.0 cannot be raised to a negative power");
    return floatPow(intToFloat(x), intToFloat(y));
  }
  return floatPow(asFloat(a), asFloat(b));
}

const isOddInteger = (y: number) => Number.isInteger(y) && Math.abs(y % 2) === 1;

/** CPython's float_pow, with a correctly rounded pow() underneath. */
export function floatPow(x: number, y: number): PyValue {
  if (y === 0) return 1;
  if (Number.isNaN(x)) return x;
  if (Number.isNaN(y)) return x === 1 ? 1 : y;
  if (!Number.isFinite(y)) {
    const ax = Math.abs(x);
    if (ax === 1) return 1;
    return y > 0 === ax > 1 ? Math.abs(y) : 0;
  }
  if (!Number.isFinite(x)) {
    const odd = isOddInteger(y);
    if (y > 0) return odd ? x : Math.abs(x);
    return odd ? (x < 0 ? -0 : 0) : 0;
  }
  if (x === 0) {
    const odd = isOddInteger(y);
    if (y < 0) throw zeroDivisionError("0.0 cannot be raised to a negative power");
    return odd ? x : 0;
  }
  let negate = false;
  if (x < 0) {
    if (!Number.isInteger(y)) return complexPow(x, y);
    x = -x;
    negate = isOddInteger(y);
  }
  if (x === 1) return negate ? -1 : 1;
  const r = Number.isInteger(y) ? exactIntegerPow(x, y) : bf.powPositive(x, y);
  if (!Number.isFinite(r)) throw new PyException("OverflowError", "(34, 'Numerical result out of range')");
  return negate ? -r : r;
}

/** x**n for a positive double and an integer n, rounded once from the exact rational. */
function exactIntegerPow(x: number, n: number): number {
  if (Math.abs(n) > 100_000) return bf.powPositive(x, n);
  const v = bf.fromFloat(x);
  const e = BigInt(Math.abs(n));
  const man = v.man ** e;
  const exp = v.exp * Math.abs(n);
  if (n > 0) return bf.toFloat({ sign: 0, man, exp });
  // 1 / (man·2^exp): divide with enough bits and a sticky bit, then round once.
  const k = bf.bitLength(man) + 60;
  let q = (1n << BigInt(k)) / man;
  const sticky = (1n << BigInt(k)) % man !== 0n ? 1n : 0n;
  q = (q << 1n) | sticky;
  return bf.toFloat({ sign: 0, man: q, exp: -k - 1 - exp });
}

/** CPython's complex pow for a negative real base and real exponent (libm-dependent last digit). */
function complexPow(x: number, y: number): PyComplex {
  const vabs = Math.abs(x);
  const len = Math.pow(vabs, y);
  const at = Math.atan2(0, x);
  const phase = at * y;
  return new PyComplex(len * Math.cos(phase), len * Math.sin(phase));
}

export function pyNeg(a: PyValue): PyValue {
  if (typeof a === "number") return -a;
  if (isInt(a)) return -intValue(a);
  throw typeError(`bad operand type for unary -: '${pyTypeName(a)}'`);
}

export function pyPos(a: PyValue): PyValue {
  if (typeof a === "number") return a;
  if (isInt(a)) return intValue(a);
  throw typeError(`bad operand type for unary +: '${pyTypeName(a)}'`);
}

export function pyInvert(a: PyValue): PyValue {
  if (isInt(a)) return -intValue(a) - 1n;
  throw typeError(`bad operand type for unary ~: '${pyTypeName(a)}'`);
}

export function pyAbs(a: PyValue): PyValue {
  if (typeof a === "number") return Math.abs(a);
  if (isInt(a)) {
    const n = intValue(a);
    return n < 0n ? -n : n;
  }
  if (a instanceof PyComplex) return Math.hypot(a.re, a.im);
  throw typeError(`bad operand type for abs(): '${pyTypeName(a)}'`);
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions

const PY_WHITESPACE = /^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/gu;

/** `float(x)`. */
export function pyFloat(v: PyValue): number {
  if (typeof v === "number") return v;
  if (isInt(v)) return intToFloat(intValue(v));
  if (typeof v === "string") {
    const s = v.replace(PY_WHITESPACE, "");
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
    if (special) {
      if (special[2].toLowerCase() === "nan") return NaN;
      return special[1] === "-" ? -Infinity : Infinity;
    }
    if (/^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/.test(s)) return Number(s.replace(/_/g, ""));
    throw valueError(`could not convert string to float: ${pyStrRepr(v)}`);
  }
  throw typeError(`float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
}

/** `int(x)`. */
export function pyInt(v: PyValue): bigint {
  if (isInt(v)) return intValue(v);
  if (typeof v === "number") {
    if (Number.isNaN(v)) throw valueError("cannot convert float NaN to integer");
    if (!Number.isFinite(v)) throw overflowError("cannot convert float infinity to integer");
    return BigInt(Math.trunc(v));
  }
  if (typeof v === "string") {
    const s = v.replace(PY_WHITESPACE, "");
    if (/^[+-]?\d(?:_?\d)*$/.test(s)) return BigInt(s.replace(/_/g, ""));
    throw valueError(`invalid literal for int() with base 10: ${pyStrRepr(v)}`);
  }
  throw typeError(`int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`);
}

/** `operator.index(v)` as used for `round(x, n)`'s n. */
function asIndex(v: PyValue): bigint {
  if (isInt(v)) return intValue(v);
  throw typeError(`'${pyTypeName(v)}' object cannot be interpreted as an integer`);
}

// ---------------------------------------------------------------------------------------------------------------
// Exact decimal text of doubles

/** The exact decimal value of a finite double as digits D and scale s (|x| = D / 10^s). */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  const v = bf.fromFloat(Math.abs(x));
  if (v.special) return { digits: 0n, scale: 0 };
  if (v.exp >= 0) return { digits: v.man << BigInt(v.exp), scale: 0 };
  return { digits: v.man * 5n ** BigInt(-v.exp), scale: -v.exp };
}

/** Round D / 10^s to `n` decimals (n may be negative), half to even: returns R with value R / 10^n. */
function roundDecimal(digits: bigint, scale: number, n: number): bigint {
  const drop = scale - n;
  if (drop <= 0) return digits * 10n ** BigInt(-drop);
  const unit = 10n ** BigInt(drop);
  const q = digits / unit;
  const r = digits % unit;
  const twice = 2n * r;
  if (twice > unit || (twice === unit && (q & 1n) === 1n)) return q + 1n;
  return q;
}

/** `format(x, ".Nf")` for an int or float, exactly as Python (half to even on the exact binary value). */
export function formatFixed(v: PyValue, decimals: number): string {
  if (v === null || v === undefined) throw typeError(`unsupported format string passed to NoneType.__format__`);
  if (!isNumber(v)) {
    if (typeof v === "string") throw valueError(`Unknown format code 'f' for object of type 'str'`);
    throw typeError(`unsupported format string passed to ${pyTypeName(v)}.__format__`);
  }
  const x = asFloat(v);
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const { digits, scale } = exactDecimal(x);
  const r = roundDecimal(digits, scale, decimals).toString().padStart(decimals + 1, "0");
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  return decimals === 0 ? sign + r : `${sign}${r.slice(0, r.length - decimals)}.${r.slice(r.length - decimals)}`;
}

/** Python `round(number[, ndigits])`. */
export function pyRound(v: PyValue, ndigits: PyValue | undefined = undefined): PyValue {
  if (!isNumber(v)) throw typeError(`type ${pyTypeName(v)} doesn't define __round__ method`);
  if (ndigits === undefined || ndigits === null) {
    if (typeof v !== "number") return intValue(v);
    if (Number.isNaN(v)) throw valueError("cannot convert float NaN to integer");
    if (!Number.isFinite(v)) throw overflowError("cannot convert float infinity to integer");
    const f = Math.floor(v);
    const diff = v - f;
    if (diff > 0.5 || (diff === 0.5 && f % 2 !== 0)) return BigInt(f + 1);
    return BigInt(f);
  }
  const n = asIndex(ndigits);
  if (typeof v !== "number") {
    const i = intValue(v);
    if (n >= 0n) return i;
    const unit = 10n ** -n;
    const neg = i < 0n;
    const a = neg ? -i : i;
    const q = a / unit;
    const r = a % unit;
    const up = 2n * r > unit || (2n * r === unit && (q & 1n) === 1n);
    const res = (up ? q + 1n : q) * unit;
    return neg ? -res : res;
  }
  if (!Number.isFinite(v) || v === 0) return v;
  // CPython: beyond these bounds the result is x itself, or a signed zero.
  if (n > 323n) return v;
  if (n < -308n) return 0 * v;
  const { digits, scale } = exactDecimal(v);
  const r = roundDecimal(digits, scale, Number(n));
  const result = Number(`${v < 0 ? "-" : ""}${r}e${-Number(n)}`);
  if (!Number.isFinite(result)) throw overflowError("rounded value too large to represent");
  return result === 0 && v < 0 ? -0 : result;
}

/** Python `x == y` restricted to numbers, re-exported for ports that compare settings. */
export const numbersEqual = (a: Num, b: Num) => pyEq(a, b);
