import { describe, expect, it } from "vitest";
import { draftOf, settingsFromDraft } from "./node-settings-editor";

describe("the node settings editor's draft", () => {
  it("keeps what it does not show (restarts) and edits the LoRA adapter folders", () => {
    const draft = draftOf({ restarts: { stepRetries: 7, waitS: 60 }, lora: { adapterDir: "/srv/adapters" } });
    expect(draft.lora).toEqual({ adapterDir: "/srv/adapters", serverAdapterDir: "" });
    const out = settingsFromDraft({ ...draft, lora: { adapterDir: "/srv/adapters", serverAdapterDir: "/mnt/adapters" } });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.value.restarts).toEqual({ stepRetries: 7, waitS: 60 });
    expect(out.value.lora).toEqual({ adapterDir: "/srv/adapters", serverAdapterDir: "/mnt/adapters" });
    const relative = settingsFromDraft({ ...draft, lora: { adapterDir: "adapters", serverAdapterDir: "" } });
    expect(relative).toEqual({ ok: false, errors: { "lora.adapterDir": "must be an absolute path" } });
  });
});
