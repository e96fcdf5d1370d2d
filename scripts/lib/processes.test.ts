import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processGroupRunning, processRunning } from "./processes";

describe("processRunning", () => {
  it("is true for a live process and its group, false once it exited", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { detached: true, stdio: "ignore" });
    const pid = child.pid!;
    try {
      expect(processRunning(pid)).toBe(true);
      expect(processGroupRunning(pid)).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
    await new Promise((r) => child.once("exit", r));
    expect(processRunning(pid)).toBe(false);
    expect(processGroupRunning(pid)).toBe(false);
  });

  it("counts a zombie as gone (signal 0 still reaches it)", async () => {
    // sh starts a child that exits a moment later, after sh became `sleep`, which never waits on it: a zombie.
    const sh = spawn("sh", ["-c", "(sleep 0.3; exit 0) & echo $!; exec sleep 30"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    try {
      const zombie = Number(await new Promise<string>((r) => sh.stdout!.once("data", (d: Buffer) => r(d.toString().trim()))));
      const deadline = Date.now() + 5000;
      let signalReaches = false;
      while (Date.now() < deadline) {
        signalReaches = (() => {
          try {
            process.kill(zombie, 0);
            return true;
          } catch {
            return false;
          }
        })();
        if (!processRunning(zombie)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(signalReaches).toBe(true);
      expect(processRunning(zombie)).toBe(false);
      // The group still has the sleeping shell.
      expect(processGroupRunning(sh.pid!)).toBe(true);
    } finally {
      sh.kill("SIGKILL");
    }
  });
});
