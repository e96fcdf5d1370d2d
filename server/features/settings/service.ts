/**
 * Installation settings (contracts/app-settings.ts): read by every page request (the CSP in proxy.ts) and
 * by the pages, changed by admins. Reads are remembered for a few seconds per process, so a page view
 * costs no query; a change made through this process applies at once, one made elsewhere within
 * READ_TTL_MS. An unreadable database leaves the defaults (the safe values) in place.
 */
import type { Prisma } from "@prisma/client";
import { appSettingKeys, appSettingsSchema, defaultAppSettings, type AppSettings } from "../../../contracts/app-settings";
import { prisma } from "../../../lib/db";

export const READ_TTL_MS = 5_000;

// On globalThis: the proxy (proxy.ts) and the routes may load this module separately in one process.
const memo = globalThis as unknown as { __envaceAppSettings?: { value: AppSettings; at: number } };

/** The settings, each key validated on its own (a bad stored value falls back to its default). */
export async function readAppSettings(opts: { fresh?: boolean } = {}): Promise<AppSettings> {
  const cached = memo.__envaceAppSettings;
  if (!opts.fresh && cached && Date.now() - cached.at < READ_TTL_MS) return cached.value;
  const rows = await prisma.appSetting.findMany({ where: { key: { in: appSettingKeys } }, select: { key: true, value: true } });
  const value: AppSettings = { ...defaultAppSettings };
  for (const row of rows) {
    const key = row.key as keyof AppSettings;
    const parsed = appSettingsSchema.shape[key].safeParse(row.value);
    if (parsed.success) (value as Record<string, unknown>)[key] = parsed.data;
  }
  memo.__envaceAppSettings = { value, at: Date.now() };
  return value;
}

/** The settings for a page request: never fails (the defaults when the database cannot be read). */
export async function appSettingsForRequest(): Promise<AppSettings> {
  try {
    return await readAppSettings();
  } catch {
    return memo.__envaceAppSettings?.value ?? defaultAppSettings;
  }
}

/** Change some settings (admins; the procedure checks), in one transaction. */
export async function updateAppSettings(change: Partial<AppSettings>, actorId: string): Promise<AppSettings> {
  await prisma.$transaction(
    Object.entries(change).map(([key, value]) =>
      prisma.appSetting.upsert({
        where: { key },
        create: { key, value: value as Prisma.InputJsonValue, updatedById: actorId },
        update: { value: value as Prisma.InputJsonValue, updatedById: actorId },
      }),
    ),
  );
  return readAppSettings({ fresh: true });
}
