import pg from "pg";

/** Register (or refresh) the embedded node as the default node named "embedded". */
export async function registerEmbeddedNode(databaseUrl: string, baseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into "node" (id, name, kind, "baseUrl", models, capabilities, health, "healthDetail", "lastSeenAt", "createdAt", "updatedAt")
       values (gen_random_uuid(), 'embedded', 'embedded', $1, '{tiny-gpt}', '{"chat":true,"training":true}', 'healthy', 'registered at start', now(), now(), now())
       on conflict (name) do update set "baseUrl" = excluded."baseUrl", kind = 'embedded', health = 'healthy',
         "healthDetail" = 'registered at start', "lastSeenAt" = now(), "updatedAt" = now()`,
      [baseUrl],
    );
  } finally {
    await client.end();
  }
}
