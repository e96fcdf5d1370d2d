/**
 * BM25+ exactly as `rank_bm25.BM25Plus` 0.2.2 (the version BFCL pins) computes it, with its defaults
 * k1 = 1.5, b = 0.75, delta = 1:
 *   idf(w)      = log((N + 1) / df(w))                       (w in the corpus; 0 otherwise)
 *   score(d, q) = Σ_{w ∈ q} idf(w) · (delta + tf(w, d)·(k1 + 1) / (k1·(1 − b + b·|d|/avgdl) + tf(w, d)))
 * summed term by term in query order with numpy's float64 operations in upstream's order, so scores agree
 * to the last bit. No npm BM25 package implements this variant (wink-bm25-text-search and okapibm25 use
 * other idf and saturation formulas), hence this small port.
 */
import { pyLog } from "./pymath";

export class Bm25Plus {
  readonly k1: number;
  readonly b: number;
  readonly delta: number;
  readonly corpusSize: number;
  readonly avgdl: number;
  private readonly docLen: number[];
  private readonly docFreqs: Map<string, number>[];
  private readonly idf = new Map<string, number>();

  /** `BM25Plus(tokenized_corpus)`; an empty corpus raises ZeroDivisionError as upstream (avgdl = 0 / 0). */
  constructor(corpus: readonly (readonly string[])[], params: { k1?: number; b?: number; delta?: number } = {}) {
    this.k1 = params.k1 ?? 1.5;
    this.b = params.b ?? 0.75;
    this.delta = params.delta ?? 1;
    const nd = new Map<string, number>();
    let numDoc = 0;
    this.docLen = [];
    this.docFreqs = [];
    for (const document of corpus) {
      this.docLen.push(document.length);
      numDoc += document.length;
      const frequencies = new Map<string, number>();
      for (const word of document) frequencies.set(word, (frequencies.get(word) ?? 0) + 1);
      this.docFreqs.push(frequencies);
      for (const word of frequencies.keys()) nd.set(word, (nd.get(word) ?? 0) + 1);
    }
    this.corpusSize = corpus.length;
    if (this.corpusSize === 0) throw new ZeroDivisionError("division by zero");
    this.avgdl = numDoc / this.corpusSize;
    for (const [word, freq] of nd) this.idf.set(word, pyLog((this.corpusSize + 1) / freq));
  }

  /** `get_scores(query)`: one score per document. */
  getScores(query: readonly string[]): number[] {
    const score = new Array<number>(this.corpusSize).fill(0);
    for (const q of query) {
      const idf = this.idf.get(q) ?? 0;
      for (let i = 0; i < this.corpusSize; i++) {
        const tf = this.docFreqs[i].get(q) ?? 0;
        // numpy: 1 - b + b * doc_len / avgdl  →  ((1 - b) + ((b * dl) / avgdl))
        const norm = this.k1 * (1 - this.b + (this.b * this.docLen[i]) / this.avgdl) + tf;
        score[i] += idf * (this.delta + (tf * (this.k1 + 1)) / norm);
      }
    }
    return score;
  }
}

/** Python's ZeroDivisionError (its `str()` is the message). */
export class ZeroDivisionError extends Error {
  readonly pyType = "ZeroDivisionError";
}
