import { appSettingsSchema } from "../../../../contracts/app-settings";
import { adminProcedure } from "../../../trpc/init";
import { updateAppSettings } from "../service";

/** Only the settings given change; an unknown one is refused, naming it. */
export const updateAppSettingsInput = appSettingsSchema.partial().strict();

/** Admins change the installation's settings. */
export const update = adminProcedure
  .input(updateAppSettingsInput)
  .output(appSettingsSchema)
  .mutation(({ ctx, input }) => updateAppSettings(input, ctx.user.id));
