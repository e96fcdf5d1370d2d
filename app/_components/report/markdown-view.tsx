/**
 * Report notes: the Markdown subset parsed by lib/reports/markdown.ts, rendered as React
 * elements. No HTML string is ever injected, so raw HTML in the notes shows up as text.
 */
import { Fragment, type ReactNode } from "react";
import { parseMarkdown, type Inline } from "../../../lib/reports/markdown";

function renderInline(nodes: Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.type) {
      case "text":
        return <Fragment key={i}>{n.text}</Fragment>;
      case "code":
        return <code key={i}>{n.text}</code>;
      case "strong":
        return <strong key={i}>{renderInline(n.children)}</strong>;
      case "em":
        return <em key={i}>{renderInline(n.children)}</em>;
      case "link":
        return (
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow">
            {renderInline(n.children)}
          </a>
        );
    }
  });
}

export function MarkdownView({ source }: { source: string }) {
  const blocks = parseMarkdown(source);
  if (blocks.length === 0) return <p className="muted">No notes.</p>;
  return (
    <div className="markdown">
      {blocks.map((b, i) => {
        switch (b.type) {
          case "heading": {
            // Notes headings sit below the page's own h1/h2.
            const Tag = (["h3", "h4", "h5"] as const)[b.level - 1]!;
            return <Tag key={i}>{renderInline(b.children)}</Tag>;
          }
          case "paragraph":
            return <p key={i}>{renderInline(b.children)}</p>;
          case "list": {
            const items = b.items.map((item, j) => <li key={j}>{renderInline(item)}</li>);
            return b.ordered ? <ol key={i}>{items}</ol> : <ul key={i}>{items}</ul>;
          }
          case "code":
            return (
              <pre key={i} className="code">
                {b.text}
              </pre>
            );
        }
      })}
    </div>
  );
}
