/**
 * Settings of the whole installation that an admin changes on the Settings page (server/features/settings,
 * one `app_setting` row per key; a key without a row has its default). Read by the web server for every
 * page (the Content-Security-Policy, proxy.ts) and by the pages (what report notes show).
 */
import { z } from "zod";

export const appSettingsSchema = z.object({
  /**
   * Report notes may show images from other hosts (`![…](https://elsewhere/…)`). Off by default: an
   * image from another host tells that host who read the report and when, and the Content-Security-Policy
   * then allows images from this server only.
   */
  reportImagesFromOtherHosts: z.boolean().default(false).describe("Report notes show images from other hosts (off: images from this server only)"),
});

export type AppSettings = z.infer<typeof appSettingsSchema>;
export type AppSettingKey = keyof AppSettings;

export const appSettingKeys = Object.keys(appSettingsSchema.shape) as AppSettingKey[];

/** The defaults: what a fresh installation has. */
export const defaultAppSettings: AppSettings = appSettingsSchema.parse({});
