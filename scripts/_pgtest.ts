import { startEmbeddedPostgres } from "/work/main/scripts/lib/database";
const t=Date.now();
const db = await startEmbeddedPostgres({ dataDir: "/work/main/.data/pg-scratch", port: 54399, database: "scratch" });
console.log(db.url, Date.now()-t);
