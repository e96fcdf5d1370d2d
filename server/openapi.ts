/**
 * The REST API: the procedures that carry `.meta(rest(...))` (server/trpc/rest.ts), served under
 * /api/v1 by trpc-to-openapi through the same router, middleware and zod validation as tRPC, and
 * described by one OpenAPI document at /api/openapi.json (the reference page /api-docs reads it).
 */
import { generateOpenApiDocument, createOpenApiFetchHandler } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import { runConfigSchema } from "../contracts/run-config";
import { annotateRunConfigSchema } from "../contracts/run-settings";
import { appRouter } from "./root";
import { createContext } from "./trpc/context";
import { readRequestWithinLimit } from "./lib/body-limit";

export const REST_PREFIX = "/api/v1";
export const OPENAPI_VERSION = "3.1.0";

/**
 * Every REST endpoint, by procedure. The OpenAPI test checks the document against this list, so an
 * endpoint cannot disappear unnoticed.
 */
export const restEndpoints = {
  "runs.create": "POST /runs",
  "runs.list": "GET /runs",
  "runs.get": "GET /runs/{id}",
  "runs.cancel": "POST /runs/{id}/cancel",
  "runs.resume": "POST /runs/{id}/resume",
  "runs.delete": "DELETE /runs/{id}",
  "runs.archive": "POST /runs/{id}/archive",
  "runs.restore": "POST /runs/{id}/restore",
  "runs.retention": "PATCH /runs/{id}/retention",
  "runs.metrics": "GET /runs/{id}/metrics",
  "runs.evaluations": "GET /runs/{id}/evaluations",
  "runs.checkpoints": "GET /runs/{runId}/checkpoints",
  "runs.checkpointEvaluations": "GET /runs/{runId}/checkpoint-evaluations",
  "trajectories.list": "GET /runs/{runId}/trajectories",
  "trajectories.detail": "GET /runs/{runId}/trajectories/{id}",
  "studies.create": "POST /studies",
  "studies.list": "GET /studies",
  "studies.get": "GET /studies/{id}",
  "studies.table": "GET /studies/{id}/table",
  "studies.series": "GET /studies/{id}/series",
  "datasets.import": "POST /datasets",
  "datasets.list": "GET /datasets",
  "nodes.list": "GET /nodes",
  "nodes.add": "POST /nodes",
  "nodes.update": "PATCH /nodes/{id}",
  "nodes.remove": "DELETE /nodes/{id}",
  "nodes.doctor": "POST /nodes/{id}/doctor",
  "mcpServers.list": "GET /mcp-servers",
  "mcpServers.get": "GET /mcp-servers/{id}",
  "mcpServers.register": "POST /mcp-servers",
  "mcpServers.update": "PATCH /mcp-servers/{id}",
  "mcpServers.test": "POST /mcp-servers/{id}/test",
  "mcpServers.remove": "DELETE /mcp-servers/{id}",
  "reports.create": "POST /reports",
  "reports.export": "GET /reports/{id}/export",
  "users.whoami": "GET /me",
} as const;

const API_DESCRIPTION = `Script EnvACE Studio: launch and follow runs, import datasets, read nodes, register MCP servers as environments and export reports.

**Authentication.** Every endpoint needs a personal API token (Settings → API tokens) sent as \`Authorization: Bearer envace_…\`. A token acts as its owner with the owner's role: viewers may read, members and admins may also write; only admins may add, change or remove nodes (the server and the worker make requests to a node's URL) and register, change, test or remove MCP servers (a registered command runs on the worker).

**Errors.** Every error answers JSON \`{ "code", "message", "fieldErrors" }\`. \`fieldErrors\` lists \`{ "path", "message" }\` per offending field, with dotted paths (\`config.data.instancesPerStep\`); it is empty when no single field is at fault. Invalid input answers 400, an unknown or revoked token 401, a viewer's token on a write 403, an unknown id 404, a state conflict (e.g. cancelling a finished run) 409.

**Live progress.** \`GET /api/events\` (same token) is a server-sent event stream of change signals \`{ "t": "run" | "log" | "node" | …, "id", "status"? }\`; read the changed object through this API. The \`envace\` CLI's \`runs watch\` follows it.`;

type Json = Record<string, unknown>;

/** Replace every schema marked `x-envace-schema: <Name>` with a reference to that component. */
function linkMarkedSchemas(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(linkMarkedSchemas);
  if (!node || typeof node !== "object") return;
  const obj = node as Json;
  for (const [key, value] of Object.entries(obj)) {
    if (value && typeof value === "object" && !Array.isArray(value) && typeof (value as Json)["x-envace-schema"] === "string") {
      const { "x-envace-schema": name, description } = value as Json;
      obj[key] = { $ref: `#/components/schemas/${name as string}`, ...(description ? { description } : {}) };
    } else linkMarkedSchemas(value);
  }
}

/** The rendered error body of every error response (see normaliseError). */
const errorSchema = {
  type: "object",
  required: ["code", "message", "fieldErrors"],
  properties: {
    code: { type: "string", description: "BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, …" },
    message: { type: "string", description: "What went wrong, in words (for a bad field: `path: message`)" },
    fieldErrors: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string", description: "Dotted path of the field, e.g. config.data.instancesPerStep" }, message: { type: "string" } },
      },
    },
  },
};

const documents = new Map<string, ReturnType<typeof buildDocument>>();

/** The OpenAPI document for a server reachable at `origin` (e.g. https://studio.example.org); built once per origin. */
export function openApiDocument(origin: string) {
  let doc = documents.get(origin);
  if (!doc) {
    doc = buildDocument(origin);
    if (documents.size < 16) documents.set(origin, doc);
  }
  return doc;
}

/** The schema with `additionalProperties: false` on every object that lists its properties. */
function closedObjects(schema: Json): Json {
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    const obj = node as Record<string, unknown>;
    if (obj.type === "object" && obj.properties && obj.additionalProperties === undefined) obj.additionalProperties = false;
    Object.values(obj).forEach(visit);
  };
  visit(schema);
  return schema;
}

function buildDocument(origin: string) {
  const doc = generateOpenApiDocument(appRouter, {
    title: "EnvACE Studio API",
    version: "1.0.0",
    openApiVersion: OPENAPI_VERSION,
    description: API_DESCRIPTION,
    baseUrl: `${origin.replace(/\/$/, "")}${REST_PREFIX}`,
    tags: ["runs", "studies", "datasets", "nodes", "mcp-servers", "reports", "account"],
    securitySchemes: { bearerToken: { type: "http", scheme: "bearer", description: "A personal API token, envace_…" } },
  }) as unknown as Json & { components: Json & { schemas?: Json }; paths: Json };

  // The run config travels as free JSON (the service validates it so errors name `config.<path>`), so its
  // shape is added here from the same zod schema, with each setting's label, unit and help.
  const input = createSchema(runConfigSchema, { schemaType: "input", openapi: OPENAPI_VERSION });
  const output = createSchema(runConfigSchema, { schemaType: "output", openapi: OPENAPI_VERSION });
  const schemas = (doc.components.schemas ??= {});
  Object.assign(schemas, input.components ?? {}, output.components ?? {});
  // A launch refuses settings the schema does not know (lib/launch-check), so the input says so; the stored
  // config (RunConfig) is returned as launched and may hold settings removed since.
  schemas.RunConfigInput = closedObjects(annotateRunConfigSchema(input.schema as Json));
  schemas.RunConfig = annotateRunConfigSchema(output.schema as Json);
  schemas.Error = errorSchema;
  linkMarkedSchemas(doc.paths);
  linkMarkedSchemas(schemas);

  // trpc-to-openapi documents its own error body; ours is normalised (normaliseError), so point at it.
  for (const [name] of Object.entries(schemas)) if (name.startsWith("error.")) delete schemas[name];
  for (const item of Object.values(doc.paths) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        if (!status.startsWith("2") && response.content) response.content = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
      }
    }
  }
  return doc;
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  issues?: { path?: (string | number)[]; message?: string }[];
  data?: { fieldErrors?: { path: string; message: string }[] | null };
}

/** One error shape for every REST error: `{ code, message, fieldErrors }`, no stack, no tRPC internals. */
function normaliseError(body: ErrorBody) {
  const fieldErrors =
    body.data?.fieldErrors ??
    (body.issues ?? []).map((i) => ({ path: (i.path ?? []).join("."), message: i.message ?? "invalid" }));
  const first = fieldErrors[0];
  const generic = body.message === "Input validation failed";
  const message = generic && first ? `${first.path || "(input)"}: ${first.message}` : String(body.message ?? "request failed");
  return { code: String(body.code ?? "INTERNAL_SERVER_ERROR"), message, fieldErrors };
}

/**
 * Serve one /api/v1 request (app/api/v1/[...path]/route.ts). The body is read here first, within its
 * route's limit (lib/body-limits.ts: 413 from Content-Length before a byte is read, or as soon as a
 * streamed body passes it), so nothing below ever holds more.
 */
export async function handleRestRequest(incoming: Request): Promise<Response> {
  const req = await readRequestWithinLimit(incoming);
  if (req instanceof Response) return req;
  const res = await createOpenApiFetchHandler({
    endpoint: REST_PREFIX,
    req,
    router: appRouter,
    createContext: () => createContext({ headers: req.headers }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`REST ${path ?? req.url}:`, error);
    },
  });
  if (res.ok) return res;
  let body: ErrorBody;
  try {
    body = (await res.json()) as ErrorBody;
  } catch {
    body = { code: "INTERNAL_SERVER_ERROR", message: "request failed" };
  }
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return new Response(JSON.stringify(normaliseError(body)), { status: res.status, headers });
}
