import { describe, expect, it } from "vitest";
import { FAILED_ROUND, finmcpMcpWorld } from "./mcp";
import { Slots } from "../mcp/slots";
import type { McpSession } from "../../../lib/mcp/session";

type Answer = () => Promise<Awaited<ReturnType<McpSession["call"]>>>;

function world(answers: Answer[], opts: { attempts?: number; roundTimeoutMs?: number; failOpen?: boolean } = {}) {
  let calls = 0;
  let opened = 0;
  const session: McpSession = { tools: [], call: () => answers[Math.min(calls++, answers.length - 1)]!(), close: async () => {} };
  const w = finmcpMcpWorld({
    server: "qieman",
    spec: {} as never,
    limits: {} as never,
    slots: new Slots(2),
    attempts: opts.attempts ?? 3,
    callTimeoutMs: 1000,
    roundTimeoutMs: opts.roundTimeoutMs ?? 60_000,
    signal: new AbortController().signal,
    sleep: async () => {},
    open: async () => {
      opened++;
      if (opts.failOpen) throw new Error("connection refused");
      return session;
    },
  });
  return { w, calls: () => calls, opened: () => opened };
}

describe("FinMCP against a live MCP server (upstream's answers)", () => {
  it("writes the first content block's text, whatever the error flag, and opens one session per turn", async () => {
    const { w, opened } = world([async () => ({ content: [{ type: "text", text: '{"ok": 1}' }, { type: "text", text: "ignored" }], isError: true })]);
    expect(await w.execute("GetTime", "{}")).toEqual({ content: '{"ok": 1}', isError: false });
    await w.execute("GetTime", "{}");
    expect(opened()).toBe(1);
    await w.close?.();
  });

  it("retries a failing call and answers [error] after the attempts; a round out of time or a server out of reach answers 调用失败", async () => {
    const failing = world([async () => ({ content: [] })], { attempts: 3 });
    expect(((await failing.w.execute("GetTime", "{}")) as { content: string }).content).toBe("[error] Tool 'GetTime' failed after 3 retries");
    expect(failing.calls()).toBe(3);
    const flaky = world([async () => Promise.reject(new Error("boom")), async () => ({ content: [{ type: "text", text: "fine" }] })]);
    expect(((await flaky.w.execute("GetTime", "{}")) as { content: string }).content).toBe("fine");
    const unreachable = world([], { failOpen: true });
    expect(((await unreachable.w.execute("GetTime", "{}")) as { content: string }).content).toBe(FAILED_ROUND);
  });
});
