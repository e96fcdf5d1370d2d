/** The bulk insert's JSON chunks: bounded by rows and characters, untrusted text made storable. */
import { describe, expect, it } from "vitest";
import { jsonChunks, storableJson } from "./persist";

describe("jsonChunks", () => {
  it("splits rows by count and by size, never losing or reordering a row", () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ i, text: "x".repeat(i * 10) }));
    const byRows = jsonChunks(rows, 3, 1 << 20);
    expect(byRows.map((c) => (JSON.parse(c) as unknown[]).length)).toEqual([3, 3, 1]);
    const bySize = jsonChunks(rows, 100, 60);
    expect(bySize.every((c) => c.length <= 60 || (JSON.parse(c) as unknown[]).length === 1)).toBe(true);
    expect(bySize.length).toBeGreaterThan(2);
    expect(bySize.flatMap((c) => JSON.parse(c) as unknown[])).toEqual(rows);
    expect(jsonChunks([])).toEqual([]);
  });

  it("replaces NUL and lone surrogates, keeps pairs and a literal backslash-u", () => {
    const [chunk] = jsonChunks([{ t: "a\u0000b \ud800 \ud83d\ude00 \\u0000" }]);
    expect(JSON.parse(chunk!)).toEqual([{ t: "a\ufffdb \ufffd \ud83d\ude00 \\u0000" }]);
    expect(storableJson({ t: "plain" })).toBe('{"t":"plain"}');
  });
});
