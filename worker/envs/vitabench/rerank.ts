/**
 * vita/utils/utils.py `rerank(keywords, docs, with_score)`: thefuzz `process.extract(keywords, list(docs.values()),
 * limit=None, scorer=fuzz.partial_ratio)`, each returned document mapped back through `{doc: key}` — so documents
 * that occur under several keys all map to the LAST such key, as upstream's reverse dict does.
 */
import { extract } from "./fuzz";

export interface Ranked {
  key: string;
  doc: string;
  score: number;
}

export function rerank(keywords: string, docs: ReadonlyMap<string, string>): Ranked[] {
  const reverse = new Map<string, string>();
  for (const [k, d] of docs) reverse.set(d, k);
  return extract(keywords, [...docs.values()].map((choice) => ({ key: 0, choice }))).map((r) => ({ key: reverse.get(r.choice)!, doc: r.choice, score: r.score }));
}
