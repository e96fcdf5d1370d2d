import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { sampleDocument } from "../../../test/fixtures/report-document";
import { MarkdownView } from "./markdown-view";

/** Rendered as on a page whose policy allows images from other hosts (an admin's setting), or not. */
const html = (source: string, doc = sampleDocument(), otherHosts = true) =>
  renderToStaticMarkup(<MarkdownView source={source} doc={doc} linkRuns={false} imagesFromOtherHosts={otherHosts} />);

/** No executable markup of any kind: scripts, event handlers, javascript:/data: URLs, frames, forms, styles. */
function expectInert(out: string) {
  expect(out).not.toMatch(/<script|<iframe|<object|<embed|<form|<style|<svg[^>]*onload|<img[^>]*onerror/i);
  // Text is escaped, so a "<" only ever opens a real tag: look for handlers among tag attributes.
  expect(out).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  expect(out).not.toMatch(/(href|src|action|formaction|xlink:href)\s*=\s*"\s*(javascript|vbscript|data):/i);
}

describe("MarkdownView: GitHub-flavoured Markdown", () => {
  it("renders headings (below the page's), emphasis, code and safe links", () => {
    const out = html("# Result\n\nEnvACE **wins** on `tau2`, ~~not~~ *always*.\n\n- a\n- [docs](https://example.com)");
    expect(out).toBe(
      '<div class="markdown"><h3>Result</h3>\n<p>EnvACE <strong>wins</strong> on <code>tau2</code>, <del>not</del> <em>always</em>.</p>\n' +
        '<ul>\n<li>a</li>\n<li><a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">docs</a></li>\n</ul></div>',
    );
  });

  it("renders tables with alignment and task lists", () => {
    const out = html("| Model | Avg@4 |\n|:---|---:|\n| EnvACE | **62.5** |\n\n- [x] train\n- [ ] eval");
    expect(out).toContain('<div class="table-scroll"><table class="table"><thead>');
    expect(out).toContain('<th style="text-align:left">Model</th><th style="text-align:right">Avg@4</th>');
    expect(out).toContain('<td style="text-align:left">EnvACE</td><td style="text-align:right"><strong>62.5</strong></td>');
    expect(out).toContain('<input type="checkbox" disabled="" checked=""/> train');
    expect(out).toContain('<input type="checkbox" disabled=""/> eval');
  });

  it("typesets inline and display math with KaTeX", () => {
    const out = html("Loss $\\mathcal{L} = -\\sum_t A_t$ and\n\n$$\n\\frac{1}{G}\\sum_{i=1}^{G} r_i\n$$");
    expect(out).toMatch(/<span class="katex"><span class="katex-mathml"><math/);
    expect(out).toContain('<span class="katex-display">');
    expect(out).toContain("<annotation encoding=\"application/x-tex\">\\mathcal{L} = -\\sum_t A_t</annotation>");
  });

  it("says so when there are no notes", () => {
    expect(renderToStaticMarkup(<MarkdownView source={"  \n"} />)).toBe('<p class="muted">No notes.</p>');
  });
});

describe("MarkdownView: hostile notes stay inert", () => {
  it("shows raw HTML as text and never links dangerous schemes", () => {
    const out = html('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) **<b>x</b>**\n\n```\n</pre><script>y</script>\n```');
    expectInert(out);
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(out).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
    expect(out).toContain("<p>click <strong>&lt;b&gt;x&lt;/b&gt;</strong></p>");
    expect(out).toContain('<pre class="code">&lt;/pre&gt;&lt;script&gt;y&lt;/script&gt;\n</pre>');
  });

  it("refuses every non-web URL in links, autolinks, references and images", () => {
    const out = html(
      [
        "[a](JAVASCRIPT:alert(1)) [b](vbscript:x) [c](data:text/html,<script>x</script>) [d](/runs/1) [e](//evil.example)",
        "[ref][r] <javascript:alert(4)> ![img](javascript:alert(5)) ![data](data:image/svg+xml,<svg onload=alert(6)>)",
        "",
        "[r]: javascript:alert(7)",
        "",
        "![ok](https://example.com/a.png) [mail](mailto:a@b.c) [anchor](#results)",
      ].join("\n"),
    );
    expectInert(out);
    expect(out).not.toMatch(/href="(\/runs|\/\/evil)/);
    expect(out).toContain('<img src="https://example.com/a.png" alt="ok" loading="lazy" referrerPolicy="no-referrer"/>');
    expect(out).toContain('<a href="mailto:a@b.c" target="_blank" rel="noopener noreferrer nofollow">mail</a>');
    expect(out).toContain('<a href="#results">anchor</a>');
  });

  it("shows images from other hosts only where an admin allows them, and says so otherwise", () => {
    const source = "![chart](https://images.example.org/c.png) and ![](http://tracker.example/p.gif)";
    const off = html(source, sampleDocument(), false);
    expect(off).not.toContain("<img");
    expect(off).toContain("[image: chart — from images.example.org, not shown]");
    expect(off).toContain("[image — from tracker.example, not shown]");
    expect(off).toContain("an admin can allow them in Settings");
    expect(html(source, sampleDocument(), true)).toContain('<img src="https://images.example.org/c.png" alt="chart" loading="lazy" referrerPolicy="no-referrer"/>');
    // Unless told, the default: off.
    expect(renderToStaticMarkup(<MarkdownView source={source} />)).not.toContain("<img");
  });

  it("keeps hostile content in table cells as text", () => {
    const out = html('| <img src=x onerror=alert(1)> | [x](javascript:alert(2)) |\n|---|---|\n| <script>alert(3)</script> | <a href="javascript:alert(4)">y</a> |');
    expectInert(out);
    expect(out).toContain("<th>&lt;img src=x onerror=alert(1)&gt;</th><th>x</th>");
    expect(out).toContain("<td>&lt;script&gt;alert(3)&lt;/script&gt;</td>");
    expect(out).toContain('<td>&lt;a href=&quot;javascript:alert(4)&quot;&gt;y&lt;/a&gt;</td>');
  });

  it("keeps hostile content in math as typeset text, with KaTeX's dangerous commands off", () => {
    const out = html(
      [
        "$<img src=x onerror=alert(1)>$",
        "$\\href{javascript:alert(2)}{click}$ $\\url{javascript:alert(3)}$",
        "$\\htmlClass{x}{y}$ $\\htmlStyle{background:url(javascript:alert(4))}{z}$ $\\htmlData{onload=alert(5)}{w}$",
        "",
        "$$",
        "</span><script>alert(6)</script>",
        "$$",
        "",
        "$\\def\\a{\\a\\a}\\a$",
      ].join("\n"),
    );
    expectInert(out);
    expect(out).not.toMatch(/<a\s/);
    expect(out).not.toMatch(/style="[^"]*url\(/); // \htmlStyle shows as error text, never as a style
    // The untrusted commands render as their names in KaTeX's error colour, and a macro loop stops at the expansion limit.
    expect(out).toContain('<span class="mord" style="color:#cc0000">\\href</span>');
    expect(out).toContain('<span class="mord" style="color:#cc0000">\\htmlData</span>');
    expect(out).toMatch(/class="katex-error"[^>]*>\\def\\a/);
  });

  it("keeps hostile content in embed blocks out of the page", () => {
    const out = html("```envace-chart\nmetric: <img src=x onerror=alert(1)>\ncaption: <script>alert(2)</script>\n```");
    expectInert(out);
    expect(out).toContain('none of the report&#x27;s runs has the metric &quot;&lt;img src=x onerror=alert(1)&gt;&quot;');
  });
});

describe("MarkdownView: embedded figures and tables", () => {
  const doc = sampleDocument({
    charts: [
      {
        key: "reward/mean",
        series: [
          { runId: "r-a", runName: "EnvACE 8B", points: [{ step: 1, value: 0.1 }, { step: 2, value: 0.4 }] },
          { runId: "r-b", runName: "Backbone | baseline", points: [{ step: 1, value: 0.2 }, { step: 2, value: 0.25 }] },
        ],
      },
    ],
  });

  it("renders a chart by metric, numbered and captioned, with the runs asked for", () => {
    const out = html("Intro.\n\n```envace-chart\nmetric: reward/mean\nruns: 1\ncaption: Reward of EnvACE\n```\n\nText.", doc);
    expect(out).toContain('<figure class="report-figure" data-testid="embedded-chart" data-metric="reward/mean">');
    expect(out).toContain('<figcaption class="embed-caption">Figure 1: Reward of EnvACE</figcaption>');
    expect(out).toContain('data-series="EnvACE 8B"');
    expect(out).not.toContain('data-series="Backbone | baseline"');
  });

  it("renders the result table, restricted to the benchmarks asked for", () => {
    const out = html("```envace-table\nbenchmarks: tau2_retail\ncaption: Retail only\n```", doc);
    expect(out).toContain('data-testid="embedded-table"');
    expect(out).toContain("Table 1: Retail only");
    expect(out).toContain(">tau2_retail<");
    expect(out).not.toContain(">shop<");
  });

  it("explains an embed it cannot show", () => {
    expect(html("```envace-chart\nruns: 1\n```", doc)).toContain("envace-chart: needs metric: &lt;key&gt;, e.g. metric: reward/mean");
    expect(html("```envace-chart\nmetric: reward/mean\nruns: 7\n```", doc)).toContain("no run &quot;7&quot; in this report (use positions 1–2 or run names)");
    expect(html("```envace-table\nbenchmarks: nope\n```", doc)).toContain("no benchmark &quot;nope&quot; in the results");
  });

  it("shows other fenced code as code", () => {
    expect(html("```python\nprint('<b>')\n```", doc)).toContain('<pre class="code">print(&#x27;&lt;b&gt;&#x27;)\n</pre>');
  });
});
