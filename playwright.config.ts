import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3100);

export default defineConfig({
  testDir: "e2e",
  testMatch: /.*\.e2e\.ts$/,
  // The foundation flows sign up the first account of the fresh database (which must become admin),
  // so they run before every other file.
  projects: [
    { name: "foundation", testMatch: /foundation\.e2e\.ts$/ },
    { name: "features", testIgnore: /foundation\.e2e\.ts$/, dependencies: ["foundation"] },
  ],
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    timezoneId: "UTC",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
});
