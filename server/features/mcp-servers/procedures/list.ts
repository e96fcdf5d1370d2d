import { authedProcedure } from "../../../trpc/init";
import { listMcpServers } from "../service";

/** Every registered server with its tools; secret values never included. */
export const list = authedProcedure.query(() => listMcpServers());
