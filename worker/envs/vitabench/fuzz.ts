/**
 * thefuzz over rapidfuzz, as upstream's tools call it (seatgeek/thefuzz 1ba86f3 on rapidfuzz 3.x):
 * - `ratio` / `partialRatio`: thefuzz's `fuzz.ratio` / `fuzz.partial_ratio` — NO preprocessing, the score rounded
 *   with Python's `round` (half to even) to an int;
 * - `extract`: thefuzz's `process.extract(query, choices, limit=None, scorer=fuzz.partial_ratio)` — both sides
 *   through `utils.full_process` (rapidfuzz's `default_process`), ranked by the UNROUNDED score (descending, ties in
 *   choice order, as rapidfuzz's extract sorts), the score then rounded.
 * `partialRatioRaw` is rapidfuzz-cpp's `partial_ratio_alignment(...).score` (fuzz_impl.hpp at f34fe29): the
 * bisecting search over full-length windows, then the prefixes and suffixes whose edge character occurs in the
 * shorter string, and both directions when the lengths are equal. Strings are compared by code point (Python `str`).
 */

/** Indel distance (insertions + deletions) = len1 + len2 - 2·LCS. */
function indelDistance(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const [s, t] = a.length <= b.length ? [a, b] : [b, a];
  let prev = new Int32Array(s.length + 1);
  let cur = new Int32Array(s.length + 1);
  for (let j = 0; j < t.length; j++) {
    const tj = t[j];
    for (let i = 0; i < s.length; i++) cur[i + 1] = s[i] === tj ? prev[i]! + 1 : Math.max(prev[i + 1]!, cur[i]!);
    [prev, cur] = [cur, prev];
  }
  return a.length + b.length - 2 * prev[s.length]!;
}

/** rapidfuzz's normalized Indel similarity ×100 (`fuzz.ratio` before thefuzz rounds it). */
function ratioRaw(a: readonly number[], b: readonly number[]): number {
  const lensum = a.length + b.length;
  if (lensum === 0) return 100;
  return (1 - indelDistance(a, b) / lensum) * 100;
}

const MAX = Number.MAX_SAFE_INTEGER;

/** fuzz_detail::partial_ratio_impl with score_cutoff 0: s1 is not longer than s2. */
function partialImpl(s1: readonly number[], s2: readonly number[]): number {
  const len1 = s1.length;
  const len2 = s2.length;
  const charSet = new Set(s1);
  let best = 0;
  if (len2 > len1) {
    const maximum = len1 * 2;
    let cutoffDist = maximum; // ceil(maximum · NormSim_to_NormDist(0)) = maximum
    let bestDist = MAX;
    const scores = new Array<number>(len2 - len1).fill(MAX);
    let windows: [number, number][] = [[0, len2 - len1 - 1]];
    const dist = (start: number) => indelDistance(s1, s2.slice(start, start + len1));
    while (windows.length) {
      const next: [number, number][] = [];
      for (const [first, second] of windows) {
        for (const at of [first, second]) {
          if (scores[at] !== MAX) continue;
          scores[at] = dist(at);
          if (scores[at]! < cutoffDist) {
            cutoffDist = bestDist = scores[at]!;
            if (bestDist === 0) return 100;
          }
        }
        const cellDiff = second - first;
        if (cellDiff === 1) continue;
        const knownEdits = Math.abs(scores[first]! - scores[second]!);
        const maxImprovement = Math.floor((cellDiff - Math.floor(knownEdits / 2)) / 2) * 2;
        const minScore = Math.min(scores[first]!, scores[second]!) - maxImprovement;
        if (minScore < cutoffDist) {
          const center = Math.floor(cellDiff / 2);
          next.push([first, first + center], [first + center, second]);
        }
      }
      windows = next;
    }
    if (bestDist !== MAX) best = (1 - bestDist / maximum) * 100;
  }
  for (let i = 1; i < len1; i++) {
    if (!charSet.has(s2[i - 1]!)) continue;
    const r = ratioRaw(s1, s2.slice(0, i));
    if (r > best) {
      best = r;
      if (best === 100) return best;
    }
  }
  for (let i = len2 - len1; i < len2; i++) {
    if (!charSet.has(s2[i]!)) continue;
    const r = ratioRaw(s1, s2.slice(i));
    if (r > best) {
      best = r;
      if (best === 100) return best;
    }
  }
  return best;
}

const codePoints = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0)!);

/** rapidfuzz `fuzz.partial_ratio(s1, s2)` (no processing, unrounded). */
export function partialRatioRaw(a: string, b: string): number {
  let s1 = codePoints(a);
  let s2 = codePoints(b);
  if (s1.length > s2.length) [s1, s2] = [s2, s1];
  if (s1.length === 0 || s2.length === 0) return s1.length === s2.length ? 100 : 0;
  const score = partialImpl(s1, s2);
  if (score !== 100 && s1.length === s2.length) {
    const score2 = partialImpl(s2, s1);
    if (score2 > score) return score2;
  }
  return score;
}

/** Python's `round(x)` for a float: to the nearest int, ties to even. */
export function pyRoundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** thefuzz `fuzz.partial_ratio(x, y)`: unprocessed, rounded. */
export const partialRatio = (a: string, b: string): number => pyRoundHalfEven(partialRatioRaw(a, b));

/** thefuzz `fuzz.ratio(x, y)`: unprocessed, rounded. */
export const ratio = (a: string, b: string): number => pyRoundHalfEven(ratioRaw(codePoints(a), codePoints(b)));

const ALNUM = /[\p{L}\p{N}]/u;

/**
 * Letters and digits of Node's Unicode version that rapidfuzz 3.14.6's (older) table does not know: it turns them
 * into spaces. Derived by running rapidfuzz's `default_process` on every code point (scripts/vitabench/README.md).
 */
// prettier-ignore
const RAPIDFUZZ_NON_ALNUM: readonly (number | readonly [number, number])[] = [[0x870, 0x887], [0x889, 0x88f], 0x8b5, [0x8c8, 0x8c9], [0xc5c, 0xc5d], [0xcdc, 0xcdd], 0x170d, 0x171f, 0x1b4c, [0x1c89, 0x1c8a], 0x2c2f, 0x2c5f, [0x9ffd, 0x9fff], [0xa7c0, 0xa7c1], [0xa7cb, 0xa7dc], [0xa7f1, 0xa7f4], [0x10570, 0x1057a], [0x1057c, 0x1058a], [0x1058c, 0x10592], [0x10594, 0x10595], [0x10597, 0x105a1], [0x105a3, 0x105b1], [0x105b3, 0x105b9], [0x105bb, 0x105bc], [0x105c0, 0x105f3], [0x10780, 0x10785], [0x10787, 0x107b0], [0x107b2, 0x107ba], [0x10940, 0x10959], [0x10d40, 0x10d65], [0x10d6f, 0x10d85], [0x10ec2, 0x10ec7], [0x10f70, 0x10f81], [0x11071, 0x11072], 0x11075, [0x1123f, 0x11240], [0x11380, 0x11389], 0x1138b, 0x1138e, [0x11390, 0x113b5], 0x113b7, 0x113d1, 0x113d3, [0x116d0, 0x116e3], [0x11740, 0x11746], [0x11ab0, 0x11abf], [0x11bc0, 0x11be0], [0x11bf0, 0x11bf9], [0x11db0, 0x11ddb], [0x11de0, 0x11de9], 0x11f02, [0x11f04, 0x11f10], [0x11f12, 0x11f33], [0x11f50, 0x11f59], [0x12f90, 0x12ff0], 0x1342f, [0x13441, 0x13446], [0x13460, 0x143fa], [0x16100, 0x1611d], [0x16130, 0x16139], [0x16a70, 0x16abe], [0x16ac0, 0x16ac9], [0x16d40, 0x16d6c], [0x16d70, 0x16d79], [0x16ea0, 0x16eb8], [0x16ebb, 0x16ed3], [0x16ff2, 0x16ff6], [0x187f8, 0x187ff], 0x18cff, [0x18d09, 0x18d1e], [0x18d80, 0x18df2], [0x1aff0, 0x1aff3], [0x1aff5, 0x1affb], [0x1affd, 0x1affe], [0x1b11f, 0x1b122], 0x1b132, 0x1b155, [0x1ccf0, 0x1ccf9], [0x1d2c0, 0x1d2d3], [0x1df00, 0x1df1e], [0x1df25, 0x1df2a], [0x1e030, 0x1e06d], [0x1e290, 0x1e2ad], [0x1e4d0, 0x1e4eb], [0x1e4f0, 0x1e4f9], [0x1e5d0, 0x1e5ed], [0x1e5f0, 0x1e5fa], [0x1e6c0, 0x1e6de], [0x1e6e0, 0x1e6e2], [0x1e6e4, 0x1e6e5], [0x1e6e7, 0x1e6ed], [0x1e6f0, 0x1e6f4], [0x1e6fe, 0x1e6ff], [0x1e7e0, 0x1e7e6], [0x1e7e8, 0x1e7eb], [0x1e7ed, 0x1e7ee], [0x1e7f0, 0x1e7fe], [0x2a6de, 0x2a6df], [0x2b735, 0x2b73f], [0x2cea2, 0x2cead], [0x2ebf0, 0x2ee5d], [0x31350, 0x33479]];
const nonAlnum = new Set<number>();
for (const r of RAPIDFUZZ_NON_ALNUM) {
  const [a, b] = typeof r === "number" ? [r, r] : r;
  for (let c = a; c <= b; c++) nonAlnum.add(c);
}

/**
 * rapidfuzz `utils.default_process`: every character that is not a letter or a digit becomes a space, the rest is
 * lower-cased (one code point to one: U+0130 İ becomes i), surrounding spaces removed.
 */
export function defaultProcess(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0x130) out += "i";
    else if (nonAlnum.has(c) || !ALNUM.test(ch)) out += " ";
    else {
      const l = ch.toLowerCase();
      out += Array.from(l).length === 1 ? l : ch;
    }
  }
  return out.replace(/^ +| +$/g, "");
}

export interface Extracted<K> {
  key: K;
  choice: string;
  /** Rounded score, as thefuzz returns it. */
  score: number;
}

/**
 * thefuzz `process.extract(query, choices, limit=None, scorer=fuzz.partial_ratio)` over a list of choices, each
 * with its key (upstream's `rerank` maps documents back to keys itself).
 */
export function extract<K>(query: string, choices: readonly { key: K; choice: string }[]): Extracted<K>[] {
  const q = defaultProcess(query);
  const scored = choices.map((c, index) => ({ ...c, index, raw: partialRatioRaw(q, defaultProcess(c.choice)) }));
  scored.sort((a, b) => b.raw - a.raw || a.index - b.index);
  return scored.map((s) => ({ key: s.key, choice: s.choice, score: pyRoundHalfEven(s.raw) }));
}
