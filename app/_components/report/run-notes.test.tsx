import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { RunNotes } from "./run-notes";

describe("a report table's per-run notes", () => {
  it("lists each run that has notes, by name, and nothing when none has", () => {
    const rows = [
      { runId: "a", runName: "base <b>", notes: ["Web: not run: web_search_base", "Memory: partial"] },
      { runId: "b", runName: "quiet", notes: [] },
    ];
    expect(renderToStaticMarkup(<RunNotes rows={rows} testId="bfcl-notes" />)).toBe(
      '<div class="small" data-testid="bfcl-notes"><div><strong>base &lt;b&gt;</strong><ul><li>Web: not run: web_search_base</li><li>Memory: partial</li></ul></div></div>',
    );
    expect(renderToStaticMarkup(<RunNotes rows={[rows[1]!]} testId="tau2-notes" />)).toBe("");
  });
});
