import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

// `prisma generate` reads env("DATABASE_URL") from the schema but never connects; give it a placeholder
// so generating the client needs no database. Commands that connect use the adapter below.
const databaseUrl = process.env.DATABASE_URL;
process.env.DATABASE_URL ??= "postgresql://generate-only@127.0.0.1:1/none";

// Offline setup: the JS engine with the pg driver adapter (the native schema engine cannot be downloaded).
export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    const url = databaseUrl;
    if (!url) throw new Error("DATABASE_URL is not set: start the embedded database with `npm run dev` or set it");
    return new PrismaPg({ connectionString: url });
  },
});
