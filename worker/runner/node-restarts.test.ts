import { describe, expect, it } from "vitest";
import { TinkerError } from "../../lib/clients/tinker-client";
import { ChatCallError } from "../../lib/clients/openai-chat";
import type { PolicyClient } from "../engine/io";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pingNode } from "../../lib/node-health";
import { NodeFailureError, NodeWatch, nodeFailureCause, withNodeRestarts, type Ping } from "./node-restarts";

/** A TinkerError as lib/clients/tinker-client/ raises it. */
function tinkerError(message: string, status: number | null, category: string, code?: string, kind: TinkerError["kind"] = status === null ? "transport" : "http") {
  return new TinkerError(message, status, category as "server", false, code, kind);
}

describe("node failure causes", () => {
  it("recognises what a restarted node answers: a future, session, model or sampler it no longer knows", () => {
    expect(nodeFailureCause(tinkerError("POST retrieve_future: HTTP 404 unknown request_id 'f_1'", 404, "user", "unknown_request"))).toMatch(/no longer knows a pending result \(restarted\?\)/);
    expect(nodeFailureCause(tinkerError("HTTP 404 unknown session", 404, "user", "unknown_session"))).toMatch(/the run's session/);
    expect(nodeFailureCause(tinkerError("HTTP 404 unknown or expired sampling_session_id", 404, "user", "unknown_sampler"))).toMatch(/the run's sampler/);
    expect(nodeFailureCause(tinkerError("future gone", 410, "server", "future_gone"))).toMatch(/dropped a pending result/);
    expect(nodeFailureCause(tinkerError('node "n": POST /api/v1/retrieve_future: HTTP 404 Not Found', 404, "user"))).toMatch(/no longer knows a pending result/);
    expect(nodeFailureCause(tinkerError("model m: a request's outcome is unknown after retries; resume the run", null, "transport", "model_broken", "transport"))).toMatch(/unknown state after a lost request/);
  });

  it("recognises an unreachable node, from either client generation and from the chat client", () => {
    expect(nodeFailureCause(tinkerError("POST asample: fetch failed", null, "transport"))).toMatch(/^the node is unreachable: POST asample: fetch failed/);
    expect(nodeFailureCause(tinkerError("node: network", null, "transport", "network", "transport"))).toMatch(/unreachable/);
    expect(nodeFailureCause(tinkerError("HTTP 503", 503, "server"))).toMatch(/unavailable/);
    expect(nodeFailureCause(new ChatCallError("node \"x\": cannot reach the node: ECONNREFUSED", undefined, "connection"))).toMatch(/unreachable/);
    expect(nodeFailureCause(Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } }))).toMatch(/unreachable/);
  });

  it("leaves every other failure to fail the run", () => {
    expect(nodeFailureCause(tinkerError("forward_backward failed: bad datum", 400, "user", "request_failed", "failed"))).toBeNull();
    expect(nodeFailureCause(tinkerError("unknown base model 'x'", 404, "user", "not_found"))).toBeNull();
    expect(nodeFailureCause(tinkerError('node "n": POST /api/v1/asample: HTTP 400 bad params', 400, "user", "bad_params"))).toBeNull();
    expect(nodeFailureCause(tinkerError("future f not ready after 1800000 ms", null, "transport", undefined, "deadline"))).toBeNull();
    expect(nodeFailureCause(tinkerError("not done within 7200 s", null, "transport", "deadline", "deadline"))).toBeNull();
    expect(nodeFailureCause(new ChatCallError("malformed", undefined, "malformed"))).toBeNull();
    expect(nodeFailureCause(new Error("step 3: every generation failed"))).toBeNull();
  });
});

describe("retrying a part after a node restart", () => {
  const node = { name: "gpu1", kind: "embedded" as const, baseUrl: "http://127.0.0.1:9" };
  const forgotten = () => tinkerError("POST retrieve_future: HTTP 404 unknown request_id", 404, "user", "unknown_request");

  function harness(pings: Array<string | null> = []) {
    const lines: string[] = [];
    const details: Array<string | null> = [];
    let resets = 0;
    const ping: Ping = async () => (pings.length ? pings.shift()! : null);
    return {
      lines,
      details,
      resets: () => resets,
      opts: {
        node,
        settings: { stepRetries: 2, waitS: 60 },
        report: { log: async (_l: string, m: string) => void lines.push(m), detail: async (t: string | null) => void details.push(t) },
        signal: new AbortController().signal,
        what: "step 3 (training)",
        from: "the committed state of step 2",
        reset: () => void resets++,
        ping,
        watchIntervalMs: 60_000,
        waitIntervalMs: 1,
      },
    };
  }

  it("waits for the node, logs it, shows it on the run, and retries from the committed state", async () => {
    const h = harness(["connect ECONNREFUSED", null]);
    let attempts = 0;
    const result = await withNodeRestarts({
      ...h.opts,
      attempt: async () => {
        if (++attempts === 1) throw forgotten();
        return "done";
      },
    });
    expect(result).toBe("done");
    expect(attempts).toBe(2);
    expect(h.resets()).toBe(1);
    expect(h.lines[0]).toMatch(/^node "gpu1": step 3 \(training\) interrupted: the node no longer knows a pending result \(restarted\?\).*retrying from the committed state of step 2 \(retry 1 of 2\)/);
    expect(h.lines[1]).toMatch(/^node "gpu1" answers; retrying step 3 \(training\)/);
    expect(h.details[0]).toMatch(/^waiting for node "gpu1": step 3 \(training\) will be retried/);
    expect(h.details.at(-1)).toBeNull();
  });

  it("discards an attempt during which a generation failed because of the node", async () => {
    const h = harness();
    const policy: PolicyClient = { generate: async () => Promise.reject(tinkerError("POST asample: fetch failed", null, "transport")) };
    let attempts = 0;
    const result = await withNodeRestarts({
      ...h.opts,
      attempt: async (watch) => {
        attempts++;
        // The engine swallows generation failures into failed turns and returns a result anyway.
        if (attempts === 1) await watch.observe(policy).generate({} as never).catch(() => undefined);
        return `result of attempt ${attempts}`;
      },
    });
    expect(result).toBe("result of attempt 2");
    expect(h.lines[0]).toMatch(/interrupted: the node is unreachable/);
  });

  it("fails naming the node and the cause after the bounded retries", async () => {
    const h = harness();
    let attempts = 0;
    const failure = await withNodeRestarts({
      ...h.opts,
      attempt: async () => {
        attempts++;
        throw forgotten();
      },
    }).catch((e) => e);
    expect(attempts).toBe(3);
    expect(failure).toBeInstanceOf(NodeFailureError);
    expect(failure.message).toMatch(/^node "gpu1": step 3 \(training\) failed 3 time\(s\) because the node no longer knows a pending result/);
    expect(failure.message).toMatch(/restarts\.stepRetries/);
  });

  it("fails naming the node and the cause when it does not come back in time", async () => {
    const h = harness(Array(100).fill("connect ECONNREFUSED 127.0.0.1:9"));
    const failure = await withNodeRestarts({
      ...h.opts,
      settings: { stepRetries: 3, waitS: 0.05 },
      attempt: async () => {
        throw forgotten();
      },
    }).catch((e) => e);
    expect(failure.message).toMatch(/^node "gpu1" did not answer within 0.05 s \(connect ECONNREFUSED 127.0.0.1:9\) after: the node no longer knows a pending result/);
  });

  it("passes other errors through at once", async () => {
    const h = harness();
    let attempts = 0;
    await expect(
      withNodeRestarts({
        ...h.opts,
        attempt: async () => {
          attempts++;
          throw new Error("StepFailedError: no training data");
        },
      }),
    ).rejects.toThrow("no training data");
    expect(attempts).toBe(1);
    expect(h.lines).toEqual([]);
  });
});

describe("watching a node during a part", () => {
  const node = { name: "embedded", kind: "embedded" as const, baseUrl: "http://127.0.0.1:9" };
  const until = async (cond: () => boolean, ms = 2000) => {
    const end = Date.now() + ms;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  };

  function watch(answers: Array<Awaited<ReturnType<Ping>>>, waitS = 60) {
    const lines: string[] = [];
    const details: Array<string | null> = [];
    let pings = 0;
    const ping: Ping = async () => {
      pings++;
      return answers.length ? answers.shift()! : null;
    };
    const w = new NodeWatch(node, { stepRetries: 1, waitS }, { log: async (_l, m) => void lines.push(m), detail: async (t) => void details.push(t) }, "step 2 (training)", ping, 2);
    return { w: w.start(), lines, details, pings: () => pings };
  }

  it("a node slow to answer its health check (busy training) is not shown as an outage", async () => {
    const slow = { problem: "http://127.0.0.1:9/api/v1/healthz: no answer within 3000 ms", slow: true };
    const h = watch([slow, slow, slow, null, slow]);
    await until(() => h.pings() >= 6);
    h.w.stop();
    expect(h.lines).toEqual([]);
    expect(h.details).toEqual([]);
  });

  it("a node that refuses connections is shown as not answering at once, and cleared when it answers", async () => {
    const h = watch([{ problem: "connect ECONNREFUSED", slow: false }, "connect ECONNREFUSED", null]);
    await until(() => h.details.length >= 2);
    h.w.stop();
    expect(h.lines[0]).toMatch(/^node "embedded" is not answering \(connect ECONNREFUSED\); waiting for it up to 60 s$/);
    expect(h.lines[1]).toMatch(/^node "embedded" answers again after \d+ s$/);
    expect(h.details[0]).toMatch(/^waiting for node "embedded" \(not answering since \d\d:\d\d:\d\d UTC\)$/);
    expect(h.details[1]).toBeNull();
  });

  it("a node that never answers, even only slowly, is given up after waitS", async () => {
    const h = watch(Array(10_000).fill({ problem: "no answer within 3000 ms", slow: true }), 0.05);
    const failure = await h.w.gaveUp.catch((e) => e);
    h.w.stop();
    expect(failure).toBeInstanceOf(NodeFailureError);
    expect(failure.message).toMatch(/^node "embedded" did not answer for 0.05 s during step 2 \(training\): no answer within 3000 ms/);
  });

  it("pingNode tells a slow answer from a refused connection", async () => {
    const server = http.createServer((req, res) => void setTimeout(() => res.end("ok"), 300));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      expect(await pingNode({ kind: "embedded", baseUrl: `http://127.0.0.1:${port}` }, 50)).toEqual({ problem: `http://127.0.0.1:${port}/api/v1/healthz: no answer within 50 ms`, slow: true });
      expect(await pingNode({ kind: "embedded", baseUrl: `http://127.0.0.1:${port}` }, 2000)).toBeNull();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    // A port nothing listens on (taken, then released, never connected to).
    const spare = http.createServer();
    await new Promise<void>((r) => spare.listen(0, "127.0.0.1", r));
    const closedPort = (spare.address() as AddressInfo).port;
    await new Promise((r) => spare.close(r));
    const refused = await pingNode({ kind: "openai", baseUrl: `http://127.0.0.1:${closedPort}` }, 500);
    expect(refused).toMatchObject({ slow: false });
    expect(refused!.problem).toMatch(/ECONNREFUSED/);
  });
});
