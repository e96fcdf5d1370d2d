/**
 * REST exposure of a procedure: `.meta(rest({...}))` puts it on /api/v1 and in the OpenAPI document
 * (server/openapi.ts). Every REST endpoint is authenticated (Bearer API token or session cookie); the
 * error codes it can answer are listed from what its procedure level can throw.
 */
import type { OpenApiMeta } from "trpc-to-openapi";
import { z } from "zod";
// `.openapi()` on schemas built in this module and by its importers.
import "zod-openapi/extend";

type Access = "read" | "write" | "admin";

export interface RestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path under /api/v1, with {param} segments named after input fields. */
  path: `/${string}`;
  tag: "runs" | "studies" | "datasets" | "nodes" | "mcp-servers" | "reports" | "account";
  summary: string;
  description?: string;
  /** read: any signed-in role (viewers too); write: members and admins (viewers get 403); admin: admins only (others get 403). */
  access: Access;
  /** Extra error answers besides 400/401(/403). */
  errors?: Record<number, string>;
}

export function rest(spec: RestSpec): OpenApiMeta {
  const errorResponses: Record<number, string> = {
    400: "Invalid input: `fieldErrors` names each offending field by its path",
    401: "Missing, unknown or revoked API token",
  };
  if (spec.access === "write") errorResponses[403] = "The token's user is a viewer (read-only)";
  if (spec.access === "admin") errorResponses[403] = "The token's user is not an admin";
  Object.assign(errorResponses, spec.errors);
  const who = { read: "Any signed-in role, viewers included.", write: "Members and admins.", admin: "Admins only." }[spec.access];
  return {
    openapi: {
      method: spec.method,
      path: spec.path,
      tags: [spec.tag],
      summary: spec.summary,
      description: spec.description ? `${spec.description}\n\n${who}` : who,
      protect: true,
      errorResponses,
    },
  };
}

/**
 * A text column whose values are a known set: documented as an enum, returned as stored (a value added
 * later by the worker must not turn a read into a 500).
 */
export function storedEnum(values: readonly [string, ...string[]]) {
  return z.string().openapi({ enum: [...values] });
}

/**
 * A JSON column read back through Prisma (typed `JsonValue`): validated against `schema` on the way
 * out, while the procedure may return the column as Prisma types it.
 */
export function jsonColumn<T extends z.ZodTypeAny>(schema: T) {
  return z.preprocess((v) => v, schema);
}

/**
 * A boolean input of a REST endpoint. trpc-to-openapi coerces plain booleans (so the string "false"
 * would read as true); behind a no-op preprocess the value must be a real JSON boolean.
 */
export function strictBoolean() {
  return z.preprocess((v) => v, z.boolean());
}
