import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// Integration tests: real PostgreSQL (a throwaway embedded instance per test run, see test/global-setup.ts).
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["**/*.int.test.ts"],
    exclude: ["**/node_modules/**", ".next/**", ".data/**"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: "forks",
    env: {
      TZ: "UTC",
      ENVACE_SECRET: "integration-test-secret-0123456789abcdef",
      ENVACE_HEARTBEAT_STALE_S: "2",
    },
  },
});
