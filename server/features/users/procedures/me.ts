import { publicProcedure } from "../../../trpc/init";

/** The caller, or null when signed out (the UI uses it to route to sign-in). */
export const me = publicProcedure.query(({ ctx }) => ctx.user);
