/**
 * The API reference: the OpenAPI document (/api/openapi.json) as a readable page — every endpoint with
 * its access, parameters, body fields, answer and errors — plus every run setting from the same source
 * as the new-run form and `envace runs settings`. Public: it documents the API and holds no data.
 */
import type { Metadata } from "next";
import { headers } from "next/headers";
import { formatSettingValue, runSettings, runSettingSections, settingTitle } from "@/contracts/run-settings";
import { openApiDocument, REST_PREFIX } from "@/server/openapi";
import { MarkdownView } from "../_components/report/markdown-view";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API reference · EnvACE Studio" };

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
  description?: string;
  default?: unknown;
  format?: string;
  title?: string;
};
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
};

const refName = (ref: string) => ref.split("/").pop()!;

function typeOf(s: Schema | undefined): string {
  if (!s) return "any";
  if (s.$ref) return refName(s.$ref);
  if (s.anyOf) return s.anyOf.map(typeOf).join(" | ");
  // A discriminated union (an MCP server's launch): name each branch by its discriminator's value.
  if (s.oneOf) {
    return s.oneOf
      .map((b) => {
        const tag = Object.entries(b.properties ?? {}).find(([, p]) => p.const !== undefined);
        return tag ? `object (${tag[0]} ${JSON.stringify(tag[1].const)})` : typeOf(b);
      })
      .join(" | ");
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return types
    .map((t) => (t === "array" ? `${typeOf(s.items)}[]` : t === "string" && s.format ? `string (${s.format})` : t))
    .join(" | ") || "object";
}

function Fields({ schema, doc }: { schema: Schema; doc: { components?: { schemas?: Record<string, Schema> } } }) {
  const target = schema.$ref ? doc.components?.schemas?.[refName(schema.$ref)] : schema;
  if (!target?.properties) return <p className="small">{typeOf(schema)}</p>;
  return (
    <table className="table api-fields">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(target.properties).map(([name, p]) => (
          <tr key={name}>
            <td>
              <code>{name}</code>
              {target.required?.includes(name) && <span className="muted small"> required</span>}
            </td>
            <td>
              {p.$ref ? <a href={refName(p.$ref).startsWith("RunConfig") ? "#run-settings" : `#schema-${refName(p.$ref)}`}>{refName(p.$ref)}</a> : <code>{typeOf(p)}</code>}
            </td>
            <td>
              {p.description}
              {p.default !== undefined && <span className="muted small"> Default: {JSON.stringify(p.default)}.</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default async function ApiDocsPage() {
  const h = await headers();
  const origin = process.env.ENVACE_PUBLIC_URL || `${h.get("x-forwarded-proto") ?? "http"}://${h.get("host") ?? "localhost:3000"}`;
  const doc = openApiDocument(origin) as unknown as {
    info: { title: string; description: string; version: string };
    servers: { url: string }[];
    tags: { name: string }[];
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Schema> };
  };
  const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
  const base = doc.servers[0]!.url;
  const settings = runSettings();
  return (
    <article className="api-docs">
      <div className="page-head">
        <h1>{doc.info.title}</h1>
        <span className="badge">v{doc.info.version}</span>
        <div className="spacer" />
        <a className="button" href="/api/openapi.json">
          OpenAPI document (JSON)
        </a>
      </div>
      <section className="card">
        <MarkdownView source={doc.info.description} />
        <p>
          Base URL: <code>{base}</code>. Quick start:
        </p>
        <pre className="code">{`curl -H "Authorization: Bearer $ENVACE_TOKEN" ${base}/runs?status=running
curl -X POST -H "Authorization: Bearer $ENVACE_TOKEN" -H "content-type: application/json" \\
  -d '{"name":"smoke","config":{"data":{"instancesPerStep":8},"schedule":{"steps":10}}}' ${base}/runs

npx envace login --url ${origin}
npx envace runs create --preset quickstart --set schedule.steps=10 --watch`}</pre>
        <nav aria-label="Endpoints">
          {doc.tags.map((t) => (
            <div key={t.name}>
              <strong>{t.name}</strong>:{" "}
              {ops
                .filter((o) => o.op.tags?.includes(t.name))
                .map((o) => (
                  <a key={o.op.operationId} href={`#${o.op.operationId}`} className="api-toc">
                    {o.method} {o.path}
                  </a>
                ))}
            </div>
          ))}
          <div>
            <strong>reference</strong>: <a href="#run-settings">run settings</a> <a href="#schemas">schemas</a>
          </div>
        </nav>
      </section>

      {doc.tags.map((t) => (
        <section key={t.name} aria-labelledby={`tag-${t.name}`}>
          <h2 id={`tag-${t.name}`}>{t.name}</h2>
          {ops
            .filter((o) => o.op.tags?.includes(t.name))
            .map(({ path, method, op }) => {
              const body = op.requestBody?.content["application/json"]?.schema;
              const ok = op.responses["200"]?.content?.["application/json"]?.schema;
              return (
                <section key={op.operationId} id={op.operationId} className="card api-op" data-testid="api-operation">
                  <h3>
                    <span className={`api-method api-${method.toLowerCase()}`}>{method}</span> <code>{REST_PREFIX + path}</code>
                  </h3>
                  <p>
                    <strong>{op.summary}</strong>
                  </p>
                  {op.description && <MarkdownView source={op.description} />}
                  {op.parameters && op.parameters.length > 0 && (
                    <>
                      <h4>Parameters</h4>
                      <table className="table api-fields">
                        <thead>
                          <tr>
                            <th scope="col">Name</th>
                            <th scope="col">In</th>
                            <th scope="col">Type</th>
                            <th scope="col">Description</th>
                          </tr>
                        </thead>
                        <tbody>
                          {op.parameters.map((p) => (
                            <tr key={`${p.in}:${p.name}`}>
                              <td>
                                <code>{p.name}</code>
                                {p.required && <span className="muted small"> required</span>}
                              </td>
                              <td>{p.in}</td>
                              <td>
                                <code>{typeOf(p.schema)}</code>
                              </td>
                              <td>
                                {p.description ?? p.schema?.description}
                                {p.schema?.default !== undefined && <span className="muted small"> Default: {JSON.stringify(p.schema.default)}.</span>}
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </>
                  )}
                  {body && (
                    <>
                      <h4>Request body (JSON)</h4>
                      <Fields schema={body} doc={doc} />
                    </>
                  )}
                  <h4>Answer (200)</h4>
                  {ok ? <Fields schema={ok.$ref ? ok : ok.type === "array" && ok.items ? ok.items : ok} doc={doc} /> : <p>empty</p>}
                  {ok?.type === "array" && <p className="muted small">A JSON array of these.</p>}
                  <h4>Errors</h4>
                  <ul className="small">
                    {Object.entries(op.responses)
                      .filter(([status]) => status !== "200")
                      .map(([status, r]) => (
                        <li key={status}>
                          <code>{status}</code> {r.description}
                        </li>
                      ))}
                  </ul>
                </section>
              );
            })}
        </section>
      ))}

      <section aria-labelledby="run-settings-heading" id="run-settings">
        <h2 id="run-settings-heading">Run settings (RunConfigInput)</h2>
        <p className="muted">
          The <code>config</code> of <code>POST {REST_PREFIX}/runs</code>, <code>envace runs create --set KEY=VALUE</code>, and the new-run form. Omitted settings take their default.
        </p>
        {runSettingSections.map((section) => {
          const mine = settings.filter((s) => s.section === section.key);
          if (!mine.length) return null;
          return (
            <div key={section.key} className="card">
              <h3>{section.label}</h3>
              <table className="table api-fields" data-testid="settings-table">
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Setting</th>
                    <th scope="col">Default</th>
                    <th scope="col">Help</th>
                  </tr>
                </thead>
                <tbody>
                  {mine.map((s) => (
                    <tr key={s.key}>
                      <td>
                        <code>{s.key}</code>
                      </td>
                      <td>
                        {settingTitle(s)}
                        {s.unit && <span className="muted small"> ({s.unit})</span>}
                      </td>
                      <td>
                        <code>{formatSettingValue(s.default)}</code>
                        {s.kind === "enum" && <div className="muted small">{s.options.join(" | ")}</div>}
                      </td>
                      <td>{s.description}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        })}
      </section>

      <section aria-labelledby="schemas-heading" id="schemas">
        <h2 id="schemas-heading">Schemas</h2>
        {Object.entries(doc.components.schemas)
          .filter(([name]) => !name.startsWith("RunConfig"))
          .map(([name, schema]) => (
            <div key={name} id={`schema-${name}`} className="card">
              <h3>{name}</h3>
              <Fields schema={schema} doc={doc} />
            </div>
          ))}
      </section>
    </article>
  );
}
