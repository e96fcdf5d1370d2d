import { z } from "zod";
import { appSettingsSchema } from "../../../../contracts/app-settings";
import { publicProcedure } from "../../../trpc/init";
import { readAppSettings } from "../service";

/**
 * The installation's settings. Public: they decide what every page shows (report notes' images on a
 * share link too) and hold nothing secret.
 */
export const get = publicProcedure
  .input(z.void())
  .output(appSettingsSchema)
  .query(() => readAppSettings());
