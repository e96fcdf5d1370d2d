/**
 * The procedure ladder: public → authed (any signed-in user or API token) → member (may launch and
 * cancel) → admin; session (a browser session, not an API token) for managing API tokens. Share-link
 * reads use publicProcedure plus a token check in their own service.
 *
 * Every procedure first checks its raw input for text the database cannot store (400 naming the field),
 * and no error that leaves here carries database or driver text: an unexpected error is logged with a
 * reference and answered "internal error (ref …)"; an unreachable database is 503.
 */
import crypto from "node:crypto";
import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
// Adds `.openapi()` to zod schemas before any procedure file builds its schemas (server/openapi.ts).
import "zod-openapi/extend";
import { describeUnstorable, findUnstorableText } from "../../lib/text-hygiene";
import { isDatabaseUnavailable } from "../lib/db-errors";
import { DomainError } from "../lib/errors";
import { forgetCallers } from "../lib/caller-cache";
import { clearSharedReads, sharedResultTransformer } from "../lib/live-reads";
import type { Context } from "./context";

export const DATABASE_UNAVAILABLE_MESSAGE = "the database is unavailable right now; try again in a moment";
const INTERNAL_PREFIX = "internal error";

/**
 * Procedures exposed over REST carry `.meta({ openapi: { method, path, ... } })` and an `.output()`
 * schema; server/openapi.ts generates the document and app/api/v1 serves them (same procedures, same
 * middleware, same validation).
 */
const t = initTRPC.context<Context>().meta<OpenApiMeta>().create({
  // superjson, with a shared result serialised once for all its callers (server/lib/live-reads.ts).
  transformer: sharedResultTransformer,
  // Stacks would carry driver text and file paths; the server log has them.
  isDev: false,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // Last line of defence: an internal error that did not pass through `safeErrors` (e.g. thrown while
    // creating the context) never shows its own message.
    const message = error.code === "INTERNAL_SERVER_ERROR" && !shape.message.startsWith(INTERNAL_PREFIX) ? `${INTERNAL_PREFIX}; see the server log` : shape.message;
    return {
      ...shape,
      message,
      data: {
        ...shape.data,
        fieldErrors:
          cause instanceof DomainError
            ? (cause.fieldErrors ?? null)
            : cause instanceof ZodError
              ? cause.issues.map((i) => ({ path: i.path.join("."), message: i.message }))
              : null,
      },
    };
  },
});

/** Unexpected errors are logged once with a reference and answered without their text. */
const safeErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (result.ok || result.error.code !== "INTERNAL_SERVER_ERROR") return result;
  const cause = result.error.cause ?? result.error;
  if (isDatabaseUnavailable(cause)) {
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_UNAVAILABLE_MESSAGE });
  }
  if (result.error.message.startsWith(INTERNAL_PREFIX)) return result;
  const ref = crypto.randomBytes(4).toString("hex");
  console.error(`tRPC ${path} failed (ref ${ref}):`, cause);
  throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: `${INTERNAL_PREFIX} (ref ${ref}); the details are in the server log` });
});

/** NUL characters and unpaired surrogates anywhere in the input: 400 naming the field. */
const storableInput = t.middleware(async ({ next, getRawInput }) => {
  let raw: unknown;
  try {
    raw = await getRawInput();
  } catch {
    return next(); // unreadable input: the input parser reports it
  }
  const found = findUnstorableText(raw);
  if (found) {
    const message = describeUnstorable(found);
    throw new TRPCError({ code: "BAD_REQUEST", message, cause: new DomainError("BAD_REQUEST", message, [{ path: found.path, message: found.problem }]) });
  }
  return next();
});

const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof DomainError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  return result;
});

// Reads shared between callers (server/lib/live-reads.ts) and remembered callers (server/lib/caller-cache.ts)
// are forgotten after any change made through this process, so whoever made it reads it back at once
// (a revoked token or a changed role included) instead of waiting for its change signal.
const readsAfterWrites = t.middleware(async ({ type, next }) => {
  const result = await next();
  if (type === "mutation") {
    clearSharedReads();
    forgetCallers();
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(safeErrors).use(storableInput).use(domainErrors).use(readsAfterWrites);

export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in or send an API token" });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

export const memberProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role === "viewer") throw new TRPCError({ code: "FORBIDDEN", message: "viewers have read-only access" });
  return next();
});

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "admin only" });
  return next();
});

/** Only a browser session (not an API token): a leaked token must not be able to mint or keep tokens. */
export const sessionProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.user.via !== "session") {
    throw new TRPCError({ code: "FORBIDDEN", message: "API tokens cannot manage API tokens; sign in to the web app to create, list or revoke them" });
  }
  return next();
});
