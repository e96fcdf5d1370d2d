/**
 * Report notes: GitHub-flavoured Markdown (tables, task lists, strikethrough, footnotes, autolinks) and
 * LaTeX math ($…$, $$…$$), rendered by react-markdown + remark-gfm + remark-math, sanitised by
 * rehype-sanitize with GitHub's allow-list (plus the math classes), then typeset by KaTeX (trust off).
 * Raw HTML is inert: it is shown as the text it is, never parsed. Links go only to http(s), mailto and
 * in-page anchors; images only load over http(s), and from other hosts only where an admin allows it
 * (Settings; the page's Content-Security-Policy says the same, lib/security-headers.ts). Fenced ```envace-chart / ```envace-table blocks
 * embed the report's charts and result table (lib/reports/embeds.ts).
 */
import "katex/dist/katex.min.css";
import type { Element, Root } from "hast";
import type { ReactNode } from "react";
import Markdown, { type Components } from "react-markdown";
import rehypeKatex from "rehype-katex";
import rehypeSanitize, { defaultSchema, type Options as SanitizeSchema } from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import type { ReportDocument } from "../../../lib/reports/document";
import { embedCaption, findEmbeds, resolveChart, resolveTable, type EmbedBlock } from "../../../lib/reports/embeds";
import { ReportChartView } from "./report-chart";
import { ResultTableView } from "./result-table";

/** GitHub's allow-list, with code blocks allowed the classes remark-math gives math (for KaTeX after it). */
export const sanitizeSchema: SanitizeSchema = {
  ...defaultSchema,
  protocols: { ...defaultSchema.protocols, href: ["http", "https", "mailto"], src: ["http", "https"] },
  attributes: {
    ...defaultSchema.attributes,
    code: [["className", /^language-./, "math-inline", "math-display"]],
  },
};

/** KaTeX without \href/\url/\html… commands (trust off) and with bounded macro expansion. */
const katexOptions = { throwOnError: false, strict: "ignore" as const, trust: false, maxSize: 20, maxExpand: 500 };

/** Raw HTML in the notes becomes plain text before anything else sees it. */
function rawHtmlAsText() {
  return (tree: Root) => {
    const visit = (node: { children?: unknown[] }) => {
      node.children?.forEach((child, i) => {
        const c = child as { type: string; value?: string; children?: unknown[] };
        if (c.type === "raw") node.children![i] = { type: "text", value: c.value ?? "" };
        else visit(c);
      });
    };
    visit(tree);
  };
}

export function safeUrl(url: string): string {
  const u = url.trim();
  if (/^(https?:\/\/|mailto:)/i.test(u) || u.startsWith("#")) return u;
  return "";
}

function textOf(node: Element | { type: string; value?: string; children?: unknown[] }): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  return ((node as { children?: Element[] }).children ?? []).map(textOf).join("");
}

function EmbedView({ block, doc, linkRuns }: { block: EmbedBlock | undefined; doc?: ReportDocument; linkRuns: boolean }) {
  if (!block) return null;
  const e = block.embed;
  if (e.kind === "error") {
    return (
      <p className="embed-error" role="note">
        {e.language}: {e.message}
      </p>
    );
  }
  const caption = embedCaption(e);
  if (!doc) return <p className="embed-placeholder muted">{caption} — shown with the report&apos;s results.</p>;
  if (e.kind === "chart") {
    const resolved = resolveChart(doc, e);
    if ("error" in resolved) return <p className="embed-error" role="note">{caption}: {resolved.error}</p>;
    return <ReportChartView doc={doc} chart={resolved.chart} caption={caption} />;
  }
  const resolved = resolveTable(doc, e);
  if ("error" in resolved) return <p className="embed-error" role="note">{caption}: {resolved.error}</p>;
  return (
    <div data-testid="embedded-table">
      <ResultTableView doc={doc} table={resolved.table} linkRuns={linkRuns} caption={caption} />
    </div>
  );
}

/** Whether `url` is on the page's own origin (always false where there is no page: server rendering, tests). */
function sameOrigin(url: string): boolean {
  if (typeof window === "undefined") return false;
  try {
    return new URL(url).origin === window.location.origin;
  } catch {
    return false;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "another host";
  }
}

/**
 * `imagesFromOtherHosts`: the page's policy allows images from other hosts (an admin's setting; client
 * callers pass `useImagePolicy().otherHosts`, app/_lib/image-policy.tsx). Off by default. A prop, not a
 * context, so the view renders on the server as well (the API reference page).
 */
export function MarkdownView({ source, doc, linkRuns = false, imagesFromOtherHosts = false }: { source: string; doc?: ReportDocument; linkRuns?: boolean; imagesFromOtherHosts?: boolean }) {
  if (!source.trim()) return <p className="muted">No notes.</p>;
  const embeds = findEmbeds(source);
  const components: Components = {
    // Notes headings sit below the page's own h1/h2.
    h1: ({ children }) => <h3>{children}</h3>,
    h2: ({ children }) => <h4>{children}</h4>,
    h3: ({ children }) => <h5>{children}</h5>,
    h4: ({ children }) => <h6>{children}</h6>,
    h5: ({ children }) => <h6>{children}</h6>,
    h6: ({ children }) => <h6>{children}</h6>,
    a: ({ href, children }) => {
      const url = href ? safeUrl(href) : "";
      if (!url) return <>{children}</>;
      if (url.startsWith("#")) return <a href={url}>{children}</a>;
      return (
        <a href={url} target="_blank" rel="noopener noreferrer nofollow">
          {children}
        </a>
      );
    },
    img: ({ src, alt }) => {
      const url = typeof src === "string" ? safeUrl(src) : "";
      if (!url || !/^https?:/i.test(url)) return <>{alt}</>;
      // Images from other hosts only where an admin allows them (the page's policy says the same).
      if (!imagesFromOtherHosts && !sameOrigin(url)) {
        return (
          <span className="image-blocked muted" data-testid="blocked-image" title="Images from other hosts are off for report notes; an admin can allow them in Settings">
            [image{alt ? `: ${alt}` : ""} — from {hostOf(url)}, not shown]
          </span>
        );
      }
      // eslint-disable-next-line @next/next/no-img-element
      return <img src={url} alt={alt ?? ""} loading="lazy" referrerPolicy="no-referrer" />;
    },
    table: ({ children }) => (
      <div className="table-scroll">
        <table className="table">{children}</table>
      </div>
    ),
    pre: ({ node, children }): ReactNode => {
      const code = node?.children.find((c): c is Element => c.type === "element" && c.tagName === "code");
      const classes = (code?.properties.className as string[] | undefined) ?? [];
      if (classes.includes("language-envace-chart") || classes.includes("language-envace-table")) {
        const start = node?.position?.start.offset;
        return <EmbedView block={embeds.find((b) => b.start === start)} doc={doc} linkRuns={linkRuns} />;
      }
      return <pre className="code">{code ? textOf(code) : children}</pre>;
    },
  };
  return (
    <div className="markdown">
      <Markdown
        remarkPlugins={[remarkGfm, remarkMath]}
        rehypePlugins={[rawHtmlAsText, [rehypeSanitize, sanitizeSchema], [rehypeKatex, katexOptions]]}
        urlTransform={safeUrl}
        components={components}
      >
        {source}
      </Markdown>
    </div>
  );
}
