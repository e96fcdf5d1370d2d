/**
 * A FinMCP-Bench policy double that writes the gold trajectory back: at each turn it finds the sample by the request's
 * first user message, counts its own replies since the last user message, and writes the gold assistant message at that
 * position (its calls as <tool_call> blocks, the arguments parsed). With the replay back end every call then gets its
 * recorded output, so a run of it scores TR = TP = TF1 = 1 and exact match on every sample — an oracle of the loop,
 * the replay and the scorer together. `mutate` changes the reply (wrong tools, bad JSON, endless calls).
 */
import type { FinmcpSample } from "../../lib/finmcp/data";
import type { GenerateRequest, PolicyClient } from "../../worker/engine/io";
import { fakeGeneration } from "./shop-oracle";

const block = (name: string, args: string) => `\n<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${args}}\n</tool_call>`;

export function goldReply(sample: FinmcpSample, req: GenerateRequest): string {
  const lastUser = req.messages.map((m) => m.role).lastIndexOf("user");
  const own = req.messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
  // The gold message index of the same user turn.
  const userIdx = sample.messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const turn = req.messages.slice(0, lastUser + 1).filter((m) => m.role === "user").length - 1;
  const start = userIdx[turn]!;
  const end = userIdx[turn + 1] ?? sample.messages.length;
  const gold = sample.messages.slice(start + 1, end).filter((m) => m.role === "assistant")[own];
  if (!gold) return "Done.";
  return `<think>\ngold turn ${turn + 1}\n</think>\n\n${gold.content ?? ""}${(gold.tool_calls ?? []).map((c) => block(c.function.name, c.function.arguments)).join("")}`;
}

export function finmcpGoldPolicy(samples: FinmcpSample[], mutate?: (text: string, sample: FinmcpSample, req: GenerateRequest) => string): PolicyClient & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(req) {
      requests.push(req);
      const first = req.messages.find((m) => m.role === "user")?.content;
      const sample = samples.find((s) => s.messages.find((m) => m.role === "user")?.content === first);
      if (!sample) throw new Error(`no sample opens with ${first}`);
      const text = goldReply(sample, req);
      return fakeGeneration(JSON.stringify(req.messages), mutate ? mutate(text, sample, req) : text);
    },
  };
}
