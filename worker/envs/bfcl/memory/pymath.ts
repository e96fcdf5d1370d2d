/**
 * `math.log(x)` as CPython on Linux (glibc, x86-64) returns it. V8's `Math.log` is one ulp off for some
 * inputs (`Math.log(3)` among them), which would change BM25 scores in their last digit. The logarithm is
 * computed here in 256-bit fixed point and rounded once (correct rounding); glibc's log is correctly rounded
 * almost everywhere, and where it is not for an argument BFCL's memory search can produce
 * ((N + 1) / df with 1 ≤ df ≤ N ≤ 50, the archival memory's size limit), its value is listed below.
 * memory/bm25.test.ts checks every such argument against Python's values.
 */

/** Arguments in BM25Plus's idf domain where glibc's log differs from the correctly rounded value. */
const GLIBC_LOG_EXCEPTIONS = new Map<number, number>([[41 / 35, 0.15822400521489416]]);

const PRECISION = 256n;
const ONE = 1n << PRECISION;

/** atanh(p/q) · 2^PRECISION for 0 ≤ p/q ≤ 1/3, by its power series. */
function atanhFixed(p: bigint, q: bigint): bigint {
  let term = (p * ONE) / q; // t^(2k+1) scaled
  const t2num = p * p;
  const t2den = q * q;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * t2num) / t2den;
  }
  return sum;
}

const LN2 = 2n * atanhFixed(1n, 3n);

/** Python's `math.log(x)` for a finite positive double (ValueError text for the others, as Python). */
export function pyLog(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return Infinity;
  if (!(x > 0)) throw new Error("math domain error");
  if (x === 1) return 0;
  const listed = GLIBC_LOG_EXCEPTIONS.get(x);
  if (listed !== undefined) return listed;
  // x = mantissa · 2^exp exactly, mantissa an integer of at most 53 bits.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biasedExp = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biasedExp === 0 ? fraction : fraction | (1n << 52n);
  let exp = (biasedExp === 0 ? -1074 : biasedExp - 1075);
  // Normalise to m ∈ [1, 2): x = (mantissa / 2^s) · 2^(exp + s) with 2^s ≤ mantissa < 2^(s+1).
  const s = mantissa.toString(2).length - 1;
  exp += s;
  // ln(m) = 2·atanh((m − 1)/(m + 1)).
  const base = 1n << BigInt(s);
  // t = (m − 1)/(m + 1) = (mantissa − 2^s)/(mantissa + 2^s) < 1/3, so the series converges quickly.
  const lnM = 2n * atanhFixed(mantissa - base, mantissa + base);
  const total = BigInt(exp) * LN2 + lnM;
  // Number(bigint) rounds to nearest (ties to even); dividing by a power of two is then exact.
  return Number(total) / 2 ** Number(PRECISION);
}
