/**
 * The one seeded random generator (mulberry32) and the (seed, step) mix that instance sampling uses.
 * Resume determinism depends on these exact sequences: a resumed run must draw the same instances
 * for a replayed step, so changing either function changes which tasks old runs train on.
 */

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of draw `step` of a run seeded `seed` (step 0 is the evaluation set's draw). */
export function stepSeed(seed: number, step: number): number {
  return (Math.imul(seed + 1, 1_000_003) + Math.imul(step, 7919)) >>> 0;
}

/** A shuffled copy of `items` (Fisher–Yates driven by mulberry32(seed)). */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const rand = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `count` items from `offset` on, wrapping around. */
export function takeCyclic<T>(items: readonly T[], count: number, offset = 0): T[] {
  return Array.from({ length: count }, (_, i) => items[(offset + i) % items.length]!);
}

/**
 * The sampling seed of pass `pass` (1…k) of an evaluation seeded `seed`: every pass of a run gets its own,
 * and a pass replayed after a crash gets the same one. A stream of its own, apart from `stepSeed`'s.
 */
export function passSeed(seed: number, pass: number): number {
  return (Math.imul(seed + 1, 2_654_435_761) ^ Math.imul(pass + 0x5eed, 40_503)) >>> 1;
}
