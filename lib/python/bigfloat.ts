/**
 * Arbitrary-precision binary floating point with correct rounding, for the few places where Python
 * code leans on exact numerics: mpmath's `mpf` (BFCL MathAPI.logarithm) and `float ** float`
 * (glibc's `pow`, which is correctly rounded in practice).
 *
 * A value is `{ sign, man, exp, special }`: (-1)^sign · man · 2^exp with `man` odd (mpmath's
 * normalisation), or a special value (zero, ±inf, nan). Transcendental functions use fixed-point
 * series with an explicit error bound and Ziv's strategy (retry with more bits until the rounding is
 * certain), so results are the correctly rounded ones.
 */

export type Rounding = "n" | "d" | "u" | "f" | "c";

export interface BigFloat {
  sign: 0 | 1;
  man: bigint;
  exp: number;
  special?: "zero" | "inf" | "-inf" | "nan";
}

export const ZERO: BigFloat = { sign: 0, man: 0n, exp: 0, special: "zero" };
export const INF: BigFloat = { sign: 0, man: 0n, exp: 0, special: "inf" };
export const NINF: BigFloat = { sign: 1, man: 0n, exp: 0, special: "-inf" };
export const NAN: BigFloat = { sign: 0, man: 0n, exp: 0, special: "nan" };

export function bitLength(n: bigint): number {
  if (n < 0n) n = -n;
  if (n === 0n) return 0;
  return n.toString(2).length;
}

function trailingZeros(n: bigint): number {
  if (n === 0n) return 0;
  let count = 0;
  while ((n & 0xffffffffn) === 0n) {
    n >>= 32n;
    count += 32;
  }
  while ((n & 1n) === 0n) {
    n >>= 1n;
    count++;
  }
  return count;
}

/** Round sign·man·2^exp to `prec` bits (man ≥ 0) and strip trailing zeros. */
export function normalize(sign: 0 | 1, man: bigint, exp: number, prec: number, rnd: Rounding = "n"): BigFloat {
  if (man === 0n) return ZERO;
  const bc = bitLength(man);
  if (bc > prec) {
    const shift = bc - prec;
    const shiftN = BigInt(shift);
    const rem = man & ((1n << shiftN) - 1n);
    let q = man >> shiftN;
    if (rem !== 0n) {
      const half = 1n << (shiftN - 1n);
      let up: boolean;
      switch (rnd) {
        case "n":
          up = rem > half || (rem === half && (q & 1n) === 1n);
          break;
        case "d":
          up = false;
          break;
        case "u":
          up = true;
          break;
        case "f":
          up = sign === 1;
          break;
        case "c":
          up = sign === 0;
          break;
      }
      if (up) q += 1n;
    }
    man = q;
    exp += shift;
  }
  const tz = trailingZeros(man);
  return { sign, man: man >> BigInt(tz), exp: exp + tz };
}

export function fromInt(n: bigint): BigFloat {
  if (n === 0n) return ZERO;
  const sign = n < 0n ? 1 : 0;
  const man = n < 0n ? -n : n;
  const tz = trailingZeros(man);
  return { sign, man: man >> BigInt(tz), exp: tz };
}

/** The exact value of a double. */
export function fromFloat(x: number): BigFloat {
  if (Number.isNaN(x)) return NAN;
  if (x === Infinity) return INF;
  if (x === -Infinity) return NINF;
  if (x === 0) return ZERO;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const sign = (hi >>> 31) as 0 | 1;
  const biased = (hi >>> 20) & 0x7ff;
  let man = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (biased === 0) exp = -1074;
  else {
    man |= 1n << 52n;
    exp = biased - 1075;
  }
  const tz = trailingZeros(man);
  return { sign, man: man >> BigInt(tz), exp: exp + tz };
}

/** Round to the nearest double (ties to even), including subnormals; overflow gives ±Infinity. */
export function toFloat(v: BigFloat): number {
  if (v.special) return v.special === "zero" ? 0 : v.special === "inf" ? Infinity : v.special === "-inf" ? -Infinity : NaN;
  const bc = bitLength(v.man);
  const top = v.exp + bc; // |value| in [2^(top-1), 2^top)
  // 53 bits for normal numbers; at subnormal magnitudes the unit is 2^-1074.
  const prec = Math.min(53, top + 1074);
  let magnitude: number;
  if (prec < 0) magnitude = 0;
  else if (prec === 0) {
    // |value| in [2^-1075, 2^-1074): exactly half the smallest subnormal ties to even (zero).
    const isPowerOfTwo = (v.man & (v.man - 1n)) === 0n;
    magnitude = isPowerOfTwo ? 0 : 5e-324;
  } else {
    const r = normalize(0, v.man, v.exp, prec, "n");
    if (r.exp + bitLength(r.man) > 1024) magnitude = Infinity;
    // r.man has ≤ 53 bits; scaling in two exact steps keeps 2^exp inside the double range.
    else magnitude = r.exp < -1000 ? Number(r.man) * 2 ** (r.exp + 600) * 2 ** -600 : Number(r.man) * 2 ** r.exp;
  }
  return v.sign ? -magnitude : magnitude;
}

export function neg(v: BigFloat): BigFloat {
  if (v.special) return v.special === "inf" ? NINF : v.special === "-inf" ? INF : v;
  return { ...v, sign: (1 - v.sign) as 0 | 1 };
}

/** Exact product. */
export function mul(a: BigFloat, b: BigFloat): BigFloat {
  if (a.special || b.special) {
    if (a.special === "nan" || b.special === "nan") return NAN;
    const aInf = a.special === "inf" || a.special === "-inf";
    const bInf = b.special === "inf" || b.special === "-inf";
    if ((aInf && b.special === "zero") || (bInf && a.special === "zero")) return NAN;
    if (aInf || bInf) return signOf(a) * signOf(b) > 0 ? INF : NINF;
    return ZERO;
  }
  return { sign: (a.sign ^ b.sign) as 0 | 1, man: a.man * b.man, exp: a.exp + b.exp };
}

function signOf(v: BigFloat): number {
  if (v.special === "zero") return 0;
  if (v.special === "inf") return 1;
  if (v.special === "-inf") return -1;
  return v.sign ? -1 : 1;
}

/** Sum rounded to `prec` bits (exact when prec is Infinity). */
export function add(a: BigFloat, b: BigFloat, prec = Infinity, rnd: Rounding = "n"): BigFloat {
  if (a.special || b.special) {
    if (a.special === "zero") return prec === Infinity ? b : round(b, prec, rnd);
    if (b.special === "zero") return prec === Infinity ? a : round(a, prec, rnd);
    if (a.special === "nan" || b.special === "nan") return NAN;
    if (a.special && b.special && a.special !== b.special) return NAN;
    return a.special ? a : b;
  }
  const e = Math.min(a.exp, b.exp);
  const x = (a.sign ? -a.man : a.man) << BigInt(a.exp - e);
  const y = (b.sign ? -b.man : b.man) << BigInt(b.exp - e);
  const s = x + y;
  if (s === 0n) return ZERO;
  return normalize(s < 0n ? 1 : 0, s < 0n ? -s : s, e, prec === Infinity ? bitLength(s) : prec, rnd);
}

export function round(v: BigFloat, prec: number, rnd: Rounding = "n"): BigFloat {
  if (v.special) return v;
  return normalize(v.sign, v.man, v.exp, prec, rnd);
}

export class DivisionByZero extends Error {}

/** Correctly rounded quotient (mpmath's `mpf_div`). */
export function div(a: BigFloat, b: BigFloat, prec: number, rnd: Rounding = "n"): BigFloat {
  if (a.special || b.special) {
    if (b.special === "zero") throw new DivisionByZero();
    if (a.special === "zero") return b.special === "nan" ? NAN : ZERO;
    const aInf = a.special === "inf" || a.special === "-inf";
    const bInf = b.special === "inf" || b.special === "-inf";
    if (aInf && bInf) return NAN;
    if (a.special === "nan" || b.special === "nan") return NAN;
    if (!bInf) return signOf(a) * signOf(b) > 0 ? INF : NINF;
    return ZERO;
  }
  const sign = (a.sign ^ b.sign) as 0 | 1;
  if (b.man === 1n) return normalize(sign, a.man, a.exp - b.exp, prec, rnd);
  let extra = prec - bitLength(a.man) + bitLength(b.man) + 5;
  if (extra < 5) extra = 5;
  let quot = (a.man << BigInt(extra)) / b.man;
  const rem = (a.man << BigInt(extra)) % b.man;
  if (rem !== 0n) {
    quot = (quot << 1n) + 1n; // sticky bit
    extra += 1;
  }
  return normalize(sign, quot, a.exp - b.exp - extra, prec, rnd);
}

export function compare(a: BigFloat, b: BigFloat): number {
  const d = add(a, neg(b));
  return signOf(d);
}

// ------------------------------------------------------------------------------------------------------------
// Fixed-point kernels (value = N / 2^wp), each returning an approximation and its error bound in units of 2^-wp.

interface Approx {
  value: bigint;
  error: bigint;
}

/** atanh(p/q) for 0 < p/q < 1 as 2^wp fixed point. */
function atanhFixed(p: bigint, q: bigint, wp: bigint): Approx {
  const one = 1n << wp;
  const t = (p * one) / q;
  const t2 = (t * t) >> wp;
  let term = t;
  let sum = t;
  let k = 1n;
  let ops = 2n;
  for (;;) {
    term = (term * t2) >> wp;
    if (term === 0n) break;
    k += 2n;
    sum += term / k;
    ops += 2n;
  }
  return { value: sum, error: ops + 2n };
}

const ln2Cache = new Map<bigint, Approx>();
/** ln 2 = 2·atanh(1/3). */
function ln2Fixed(wp: bigint): Approx {
  const hit = ln2Cache.get(wp);
  if (hit) return hit;
  const a = atanhFixed(1n, 3n, wp);
  const r = { value: a.value * 2n, error: a.error * 2n };
  ln2Cache.set(wp, r);
  return r;
}

/** ln(man·2^exp) for man > 0. */
function lnFixed(man: bigint, exp: number, wp: bigint): Approx {
  const bc = bitLength(man);
  // x = m·2^k with m = man/2^bc in [0.5, 1); move m into [1/√2, √2).
  let k = BigInt(exp + bc);
  let num = man;
  let den = 1n << BigInt(bc);
  if (num * num * 2n < den * den) {
    num *= 2n;
    k -= 1n;
  }
  // ln(m) = 2·atanh((m-1)/(m+1)).
  const p = num - den;
  const q = num + den;
  let lnm: Approx = { value: 0n, error: 0n };
  if (p !== 0n) {
    const a = atanhFixed(p < 0n ? -p : p, q, wp);
    lnm = { value: (p < 0n ? -a.value : a.value) * 2n, error: a.error * 2n };
  }
  const absK = k < 0n ? -k : k;
  const l2 = ln2Fixed(wp);
  return { value: lnm.value + k * l2.value, error: lnm.error + absK * l2.error + 1n };
}

/** atan(1/n) for integer n ≥ 2. */
function atanInvFixed(n: bigint, wp: bigint): Approx {
  const one = 1n << wp;
  const n2 = n * n;
  let term = one / n;
  let sum = term;
  let k = 1n;
  let ops = 1n;
  let sign = -1n;
  for (;;) {
    term = term / n2;
    if (term === 0n) break;
    k += 2n;
    sum += (sign * term) / k;
    sign = -sign;
    ops += 2n;
  }
  return { value: sum, error: ops + 2n };
}

/** π = 16·atan(1/5) − 4·atan(1/239). */
function piFixed(wp: bigint): Approx {
  const a = atanInvFixed(5n, wp);
  const b = atanInvFixed(239n, wp);
  return { value: 16n * a.value - 4n * b.value, error: 16n * a.error + 4n * b.error };
}

/**
 * Correctly round a fixed-point approximation (value ± error, in units of 2^-wp) to `prec` bits, or
 * return undefined when the error interval straddles a rounding boundary.
 */
function roundApprox(a: Approx, wp: bigint, prec: number, rnd: Rounding): BigFloat | undefined {
  const lo = a.value - a.error;
  const hi = a.value + a.error;
  const x = fromFixed(lo, wp, prec, rnd);
  const y = fromFixed(hi, wp, prec, rnd);
  if (x.special && y.special && x.special === y.special) return x;
  if (!x.special && !y.special && x.sign === y.sign && x.man === y.man && x.exp === y.exp) return x;
  return undefined;
}

function fromFixed(v: bigint, wp: bigint, prec: number, rnd: Rounding): BigFloat {
  if (v === 0n) return ZERO;
  return normalize(v < 0n ? 1 : 0, v < 0n ? -v : v, -Number(wp), prec, rnd);
}

function ziv(prec: number, rnd: Rounding, kernel: (wp: bigint) => Approx): BigFloat {
  let wp = BigInt(prec + 32);
  for (let attempt = 0; attempt < 12; attempt++) {
    const r = roundApprox(kernel(wp), wp, prec, rnd);
    if (r) return r;
    wp = wp * 2n;
  }
  const a = kernel(wp);
  return fromFixed(a.value, wp, prec, rnd);
}

/** Natural logarithm of a positive finite value, correctly rounded to `prec` bits. */
export function ln(x: BigFloat, prec: number, rnd: Rounding = "n"): BigFloat {
  if (x.special) throw new RangeError("ln of a special value");
  if (x.sign) throw new RangeError("ln of a negative value");
  if (x.man === 1n && x.exp === 0) return ZERO;
  const extra = BigInt(bitLength(BigInt(Math.abs(x.exp) + bitLength(x.man))) + 8);
  return ziv(prec, rnd, (wp) => {
    const r = lnFixed(x.man, x.exp, wp + extra);
    return { value: r.value >> extra, error: (r.error >> extra) + 2n };
  });
}

/** π correctly rounded to `prec` bits. */
export function pi(prec: number, rnd: Rounding = "n"): BigFloat {
  return ziv(prec, rnd, (wp) => {
    const r = piFixed(wp + 8n);
    return { value: r.value >> 8n, error: (r.error >> 8n) + 2n };
  });
}

// ------------------------------------------------------------------------------------------------------------
// exp, for pow

/** exp(z) for fixed-point z (|z| moderate), returned as man·2^exp with a relative error bound 2^-(wp-guard). */
function expFixed(z: bigint, wp: bigint): { man: bigint; exp: bigint } {
  const one = 1n << wp;
  const l2 = ln2Fixed(wp).value;
  // z = n·ln2 + r with |r| ≤ ln2/2
  let n = z / l2;
  let r = z - n * l2;
  if (r * 2n > l2) {
    n += 1n;
    r -= l2;
  } else if (r * 2n < -l2) {
    n -= 1n;
    r += l2;
  }
  // exp(r) = (exp(r/2^s))^(2^s)
  const s = BigInt(Math.max(4, Math.ceil(Math.sqrt(Number(wp)) / 2)));
  const rr = r >> s;
  let term = one;
  let sum = one;
  for (let k = 1n; ; k++) {
    term = (term * rr) / (k << wp);
    if (term === 0n) break;
    sum += term;
  }
  for (let i = 0n; i < s; i++) sum = (sum * sum) >> wp;
  return { man: sum, exp: n - wp };
}

/**
 * x**y for doubles, correctly rounded (x > 0 finite, y finite and not an integer — integer powers are
 * exact rationals and handled by the caller). Returns ±Infinity on overflow, 0 on underflow.
 */
export function powPositive(x: number, y: number): number {
  const bx = fromFloat(x);
  const by = fromFloat(y);
  for (let wp = 128n; wp <= 8192n; wp *= 2n) {
    const lnx = lnFixed(bx.man, bx.exp, wp);
    // z = y·ln(x) in 2^-wp fixed point; y = (-1)^s·m·2^e exactly.
    const ym = by.sign ? -by.man : by.man;
    let z = lnx.value * ym;
    let zErr = lnx.error * by.man;
    if (by.exp >= 0) {
      z <<= BigInt(by.exp);
      zErr <<= BigInt(by.exp);
    } else {
      z >>= BigInt(-by.exp);
      zErr = (zErr >> BigInt(-by.exp)) + 1n;
    }
    const zAbs = z < 0n ? -z : z;
    if (zAbs > 800n << wp) return z > 0n ? Infinity : 0; // beyond the double range either way
    // exp(z ± zErr): relative error ≈ zErr·2^-wp plus the exp kernel's own (bounded by 2^(s+8) ulps).
    const e = expFixed(z, wp);
    const kernelBits = BigInt(Math.ceil(Math.sqrt(Number(wp)) / 2) + 16);
    const relErr = zErr + (1n << kernelBits);
    const lo = e.man - ((e.man * relErr) >> wp) - 1n;
    const hi = e.man + ((e.man * relErr) >> wp) + 1n;
    const a = toFloat({ sign: 0, man: lo, exp: Number(e.exp) });
    const b = toFloat({ sign: 0, man: hi, exp: Number(e.exp) });
    if (a === b) return a; // rounding is monotonic, so the true value rounds to the same double
  }
  return Math.pow(x, y);
}
