import { beforeAll, describe, expect, it } from "vitest";
import { ensureBackend } from "./model";
import { type Transcript, pretrain, transcriptDatum, DEFAULT_PRETRAIN } from "./pretrain";
import { renderPrompt } from "../../lib/renderers/tiny-gpt/chat-format";
import { VOCAB_SIZE } from "../../lib/renderers/tiny-gpt/tokenizer";

beforeAll(async () => {
  await ensureBackend("wasm");
});

// A tiny synthetic domain: the act role names the item, the rehearse role answers with its price.
function synthetic(n: number): Transcript[] {
  const items = ["cap", "mug", "pen"];
  return Array.from({ length: n }, (_, i) => {
    const item = items[i % 3];
    return i % 2 === 0
      ? { role: "act" as const, messages: [{ role: "user" as const, content: `buy ${item}` }], completion: `<tool_call>${item}` }
      : { role: "rehearse" as const, messages: [{ role: "user" as const, content: `call ${item}` }], completion: `{"p":${item.length + i % 3}}` };
  });
}

describe("pretrain", () => {
  it("puts loss weight only on the completion and its stop token", () => {
    const t = synthetic(1)[0];
    const d = transcriptDatum(t, 1024)!;
    const promptLen = renderPrompt(t.messages).length;
    expect(d.tokens.length).toBe(d.targets.length);
    expect(d.weights!.filter((w) => w === 1).length).toBe(Buffer.byteLength(t.completion) + 1);
    expect(d.weights!.slice(0, promptLen - 1).every((w) => w === 0)).toBe(true);
    expect(transcriptDatum(t, 5)).toBeNull();
  });

  it("lowers the loss on a tiny synthetic set, reproducibly for a seed", async () => {
    const data = synthetic(48);
    const opts = { ...DEFAULT_PRETRAIN, steps: 25, batch: 8, lr: 1e-2, config: { vocabSize: VOCAB_SIZE, contextLength: 64, nLayer: 1, nHead: 2, dModel: 32 } };
    const a = await pretrain(data, data.slice(0, 6), opts, () => {});
    const b = await pretrain(data, data.slice(0, 6), opts, () => {});
    expect(a.losses).toEqual(b.losses);
    expect(a.losses[0]).toBeGreaterThan(5);
    expect(a.finalLoss).toBeLessThan(a.losses[0] * 0.6);
    expect(a.evalLoss).toBeLessThan(a.losses[0] * 0.6);
    a.trainer.dispose();
    b.trainer.dispose();
  });
});
