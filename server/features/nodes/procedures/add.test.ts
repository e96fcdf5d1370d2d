import { describe, expect, it } from "vitest";
import { addNodeInput } from "./add";

describe("nodes.add input", () => {
  const base = { name: "vllm-judge", kind: "openai", baseUrl: "http://gpu-1:8000" } as const;

  it("takes per-node settings and fills their defaults", () => {
    const parsed = addNodeInput.parse({ ...base, settings: { openai: { stream: true, extraBody: { chat_template_kwargs: { enable_thinking: false } } } } });
    expect(parsed.settings?.openai).toMatchObject({ stream: true, maxConcurrency: 64, extraBody: { chat_template_kwargs: { enable_thinking: false } } });
    expect(addNodeInput.parse(base).settings).toBeUndefined();
  });

  it("refuses settings that would silently do nothing or clash with the run, naming the field", () => {
    const bad = addNodeInput.safeParse({ ...base, settings: { openai: { extraBody: { max_tokens: 10 } } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0].path.join(".")).toBe("settings.openai.extraBody.max_tokens");
    expect(addNodeInput.safeParse({ ...base, settings: { openai: { maxConcurrency: 0 } } }).success).toBe(false);
    expect(addNodeInput.safeParse({ ...base, settings: { opneai: {} } }).success).toBe(false);
  });
});
