import { z } from "zod";
import { mcpServerSettingsSchema } from "../../../../contracts/mcp";
import { adminProcedure } from "../../../trpc/init";
import { updateMcpServer } from "../service";

export const updateMcpServerInput = z.object({
  id: z.string().uuid(),
  description: z.string().trim().max(2000).optional(),
  settings: mcpServerSettingsSchema.optional(),
});

export const update = adminProcedure.input(updateMcpServerInput).mutation(({ input }) => updateMcpServer(input.id, input));
