import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EpisodeScoreContext } from "../../../engine/types";
import { functionDocTools, scoreAgenticEpisode } from "./agentic-episode";

const ctx = (actTexts: string[]): EpisodeScoreContext =>
  ({ terminationReason: "final_answer", records: actTexts.map((text) => ({ role: "act", text })) }) as unknown as EpisodeScoreContext;
const base = { category: "web_search_base", taskId: "web_search_base_0", termination: "final_answer" };

describe("BFCL agentic episodes", () => {
  it("reads a function-document file as tools, and names the file and line of a malformed document", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bfcl-docs-"));
    mkdirSync(path.join(dir, "data"));
    const doc = { name: "search", description: "Search the web.", parameters: { type: "dict", properties: { q: { type: "string", description: "query" } }, required: ["q"] } };
    writeFileSync(path.join(dir, "data", "good.json"), `${JSON.stringify(doc)}\n`);
    expect(functionDocTools("data/good.json", dir).map((t) => t.function.name)).toEqual(["search"]);
    writeFileSync(path.join(dir, "data", "bad.json"), `${JSON.stringify(doc)}\n${JSON.stringify({ description: "no name" })}\n`);
    expect(() => functionDocTools("data/bad.json", dir)).toThrow(/bad\.json:2: name: /);
  });

  it("scores the last reply that is not a function call against the accepted answers", () => {
    const right = scoreAgenticEpisode(base, ["Paris"], ctx(['[search(q="capital")]', "{\"answer\": \"Paris\", \"context\": \"from the page\"}"]), null);
    expect(right).toMatchObject({ reward: 1, success: true, detail: { bfcl: { scored: true, valid: true } } });
    const wrong = scoreAgenticEpisode(base, ["Paris"], ctx(["{\"answer\": \"Lyon\", \"context\": \"\"}"]), null);
    expect(wrong).toMatchObject({ reward: 0, success: false, detail: { bfcl: { scored: true, valid: false, check: { details: ["expected one of: Paris"] } } } });
  });

  it("leaves an episode that could not run unscored, with the reason", () => {
    const out = scoreAgenticEpisode(base, ["Paris"], ctx(["{\"answer\": \"Paris\"}"]), "the search node kept rate-limiting");
    expect(out).toMatchObject({ reward: 0, error: "the search node kept rate-limiting", detail: { bfcl: { scored: false, notScoredReason: "the search node kept rate-limiting" } } });
  });
});
