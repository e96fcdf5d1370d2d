import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrate, startEmbeddedPostgres, assertDatabaseReachable } from "../scripts/lib/database";

/** A throwaway PostgreSQL for this test run (or TEST_DATABASE_URL), migrated with the real migrations. */
export default async function setup(project: TestProject) {
  let url = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  let dir: string | null = null;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-test-pg-"));
    fs.chmodSync(dir, 0o777);
    const port = 55000 + Math.floor(Math.random() * 5000);
    const db = await startEmbeddedPostgres({ dataDir: path.join(dir, "data"), port, database: "envace_test", throwaway: true });
    url = db.url;
    stop = db.stop;
  } else {
    await assertDatabaseReachable(url);
  }
  await migrate(url);
  process.env.DATABASE_URL = url;
  project.provide("databaseUrl", url);
  return async () => {
    await stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
