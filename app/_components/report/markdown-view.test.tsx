import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { MarkdownView } from "./markdown-view";

describe("MarkdownView", () => {
  it("renders the subset as elements", () => {
    const html = renderToStaticMarkup(<MarkdownView source={"# Result\n\nEnvACE **wins** on `tau2`.\n\n- a\n- [docs](https://example.com)"} />);
    expect(html).toBe(
      '<div class="markdown"><h3>Result</h3><p>EnvACE <strong>wins</strong> on <code>tau2</code>.</p>' +
        '<ul><li>a</li><li><a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">docs</a></li></ul></div>',
    );
  });

  it("escapes raw HTML and never links dangerous schemes", () => {
    const html = renderToStaticMarkup(
      <MarkdownView source={'<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) **<b>x</b>**\n\n```\n</pre><script>y</script>\n```'} />,
    );
    expect(html).not.toMatch(/<script|<img|<b>|href="javascript/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
    expect(html).toContain("<p>click <strong>&lt;b&gt;x&lt;/b&gt;</strong></p>");
    expect(html).toContain('<pre class="code">&lt;/pre&gt;&lt;script&gt;y&lt;/script&gt;</pre>');
  });

  it("says so when there are no notes", () => {
    expect(renderToStaticMarkup(<MarkdownView source={"  \n"} />)).toBe('<p class="muted">No notes.</p>');
  });
});
