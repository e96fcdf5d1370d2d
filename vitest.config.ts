import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// Unit tests: pure code, no database. Integration tests (*.int.test.ts) use vitest.int.config.ts.
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["{contracts,server,worker,app,bench,lib,scripts,cli}/**/*.test.{ts,tsx}"],
    exclude: ["**/node_modules/**", "**/*.int.test.ts", ".next/**", ".data/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { TZ: "UTC" },
    pool: "forks",
  },
});
