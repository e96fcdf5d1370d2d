/** The known names closest to a mistyped one (Levenshtein distance), for "did you mean …?" hints. Pure. */

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}

/** Up to `max` known names within a small edit distance of `name` (case-insensitive), closest first. */
export function nearestNames(name: string, known: Iterable<string>, max = 3): string[] {
  const k = name.toLowerCase();
  return [...known]
    .map((candidate) => ({ candidate, d: editDistance(k, candidate.toLowerCase()) }))
    .filter((c) => c.d <= Math.max(2, Math.floor(k.length / 4)))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, max)
    .map((c) => c.candidate);
}
