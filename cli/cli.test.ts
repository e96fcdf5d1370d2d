import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { credentialsPath, loadCredentials, saveCredentials } from "./credentials";
import { sseMessages } from "./events";
import { applyOverrides, nearestKeys, parseOverride, UsageError } from "./overrides";
import { formatDuration, formatMetric, pickMetrics, renderBar, renderProgress } from "./progress";

describe("--set overrides", () => {
  it("parses JSON values, and text when it is not JSON", () => {
    expect(parseOverride("data.instancesPerStep=8")).toEqual({ path: ["data", "instancesPerStep"], value: 8 });
    expect(parseOverride("rollout.shadowExecution=false").value).toBe(false);
    expect(parseOverride("policy.node=gpu-1").value).toBe("gpu-1");
    expect(parseOverride("data.instanceIds=[\"a\",\"b\"]").value).toEqual(["a", "b"]);
    expect(parseOverride('reward.judge={"node":"j","model":"m"}').value).toEqual({ node: "j", model: "m" });
    expect(parseOverride("policy.model=Qwen/Qwen3-8B=x").value).toBe("Qwen/Qwen3-8B=x");
  });

  it("takes a comma list or JSON for a list setting", () => {
    expect(parseOverride("data.instanceIds=0,1,2").value).toEqual(["0", "1", "2"]);
    expect(parseOverride("data.instanceIds= multi_turn_base_3 , multi_turn_base_7,").value).toEqual(["multi_turn_base_3", "multi_turn_base_7"]);
    expect(parseOverride("data.instanceIds=5").value).toEqual(["5"]);
    expect(parseOverride('data.instanceIds=["a,b","c"]').value).toEqual(["a,b", "c"]);
    expect(parseOverride("data.instanceIds=[0,1]").value).toEqual(["0", "1"]);
    expect(parseOverride("data.instanceIds=").value).toEqual([]);
    // Other settings are unchanged: a comma is text there.
    expect(parseOverride("policy.model=a,b").value).toBe("a,b");
  });

  it("refuses keys that are no setting, suggesting the nearest", () => {
    expect(() => parseOverride("optim.lrr=1")).toThrow(/no such run setting \(did you mean optim\.lr\?\)/);
    expect(() => parseOverride("nonsense")).toThrow(UsageError);
    expect(() => parseOverride("=3")).toThrow(/expected key=value/);
    expect(nearestKeys("data.instancePerStep", ["data.instancesPerStep", "data.seed"])).toEqual(["data.instancesPerStep"]);
  });

  it("applies overrides in order on a copy, creating missing objects", () => {
    const base = { data: { instancesPerStep: 4 } };
    const out = applyOverrides(base, [
      { path: ["data", "instancesPerStep"], value: 8 },
      { path: ["reward", "judge", "node"], value: "j" },
      { path: ["data", "instancesPerStep"], value: 2 },
    ]);
    expect(out).toEqual({ data: { instancesPerStep: 2 }, reward: { judge: { node: "j" } } });
    expect(base).toEqual({ data: { instancesPerStep: 4 } });
  });
});

describe("progress line", () => {
  it("shows bar, steps, percent, ETA, status and the preferred metrics", () => {
    const line = renderProgress(
      { name: "r", status: "running", progressStep: 3, totalSteps: 12, etaSeconds: 250, latestMetrics: { "zz/other": 1, "fidelity/mean": 0.83, "reward/mean": 0.41234 } },
      12,
    );
    expect(line).toBe("[###---------]  3/12 steps   25%  ETA 4m 10s  running  reward/mean 0.412 · fidelity/mean 0.83 · zz/other 1");
  });

  it("counts an evaluation's episodes, a training run's steps", () => {
    const run = { name: "r", status: "running", progressStep: 8, totalSteps: 12, etaSeconds: 30, latestMetrics: {} };
    expect(renderProgress({ ...run, kind: "eval" }, 6)).toBe("[####--]  8/12 episodes   66%  ETA 30s  running");
    expect(renderProgress({ ...run, kind: "train" }, 6)).toBe("[####--]  8/12 steps   66%  ETA 30s  running");
  });

  it("has no ETA when the run is not running", () => {
    expect(renderProgress({ name: "r", status: "queued", progressStep: 0, totalSteps: 5, etaSeconds: 10, latestMetrics: {} }, 4)).toBe("[----]  0/5 steps    0%  ETA —  queued");
  });

  it("formats durations, metrics and bars", () => {
    expect([5, 65, 3600 + 120].map(formatDuration)).toEqual(["5s", "1m 05s", "1h 02m"]);
    expect([null, 0, 1e-6, 123456, 0.5].map(formatMetric)).toEqual(["—", "0", "1.00e-6", "1.23e+5", "0.5"]);
    expect(renderBar(2, 3)).toBe("[###]");
    expect(pickMetrics({ "val/avg@4": 1, "val/pass@4": 2, a: 3 }).map(([k]) => k)).toEqual(["val/avg@4", "val/pass@4", "a"]);
  });
});

describe("event stream parsing", () => {
  it("yields messages across chunk boundaries, with their event name, and skips comments", async () => {
    const chunks = [": connected\n\n", 'data: {"t":"run","id":"a"}\n', "\ndata: {\"t\":", '"log","id":"b"}\r\n\r\n', ": ping\n\n", "event: resync\ndata: {}\n\n"];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
        c.close();
      },
    });
    const got: { event: string; data: string }[] = [];
    for await (const m of sseMessages(body)) got.push(m);
    expect(got).toEqual([
      { event: "message", data: '{"t":"run","id":"a"}' },
      { event: "message", data: '{"t":"log","id":"b"}' },
      { event: "resync", data: "{}" },
    ]);
  });
});

describe("credentials", () => {
  it("are written 0600 in a 0700 directory and refused when others can read them", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-creds-"));
    const env = { ENVACE_CONFIG_DIR: path.join(dir, "cfg") };
    try {
      const file = saveCredentials({ url: "http://localhost:3000", token: "envace_x" }, env);
      expect(file).toBe(credentialsPath(env));
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(loadCredentials(env)).toMatchObject({ url: "http://localhost:3000", token: "envace_x" });
      fs.chmodSync(file, 0o644);
      expect(() => loadCredentials(env)).toThrow(/readable by other users; run: chmod 600/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("live under XDG_CONFIG_HOME by default", () => {
    expect(credentialsPath({ XDG_CONFIG_HOME: "/x" })).toBe("/x/envace/credentials.json");
  });
});
