/**
 * The procedure ladder: public → authed (any signed-in user or API token) → member (may launch and
 * cancel) → admin. Share-link reads use publicProcedure plus a token check in their own service.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { DomainError } from "../lib/errors";
import { clearSharedReads } from "../lib/live-reads";
import type { Context } from "./context";

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
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

const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof DomainError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  return result;
});

// Reads shared between callers (server/lib/live-reads.ts) are forgotten after any change made through
// this process, so whoever made it reads it back at once instead of waiting for its change signal.
const readsAfterWrites = t.middleware(async ({ type, next }) => {
  const result = await next();
  if (type === "mutation") clearSharedReads();
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(domainErrors).use(readsAfterWrites);

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
