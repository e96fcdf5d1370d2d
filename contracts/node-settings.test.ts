import { describe, expect, it } from "vitest";
import { modelRenderSettingsSchema, nodeSettingsSchema, parseNodeSettings } from "./node-settings";

describe("node settings: models", () => {
  it("defaults to no per-model settings, and a model's renderer to auto", () => {
    expect(parseNodeSettings("n", {}).models).toEqual({});
    expect(parseNodeSettings("n", { models: { "Qwen/Qwen3-8B": { enableThinking: false } } }).models["Qwen/Qwen3-8B"]).toEqual({ renderer: "auto", enableThinking: false });
  });

  it("names the node and the field of a bad value", () => {
    expect(() => parseNodeSettings("gpu1", { models: { "Qwen/Qwen3-8B": { renderer: "qwen2" } } })).toThrow(/^node "gpu1": settings\.models\.Qwen\/Qwen3-8B\.renderer: Invalid enum value/);
    expect(() => parseNodeSettings("gpu1", { models: { m: { tokenizr: "/x" } } })).toThrow(/settings\.models\.m: Unrecognized key/);
    expect(() => parseNodeSettings("gpu1", { models: { m: { contextLength: 3 } } })).toThrow(/settings\.models\.m\.contextLength/);
  });

  it("describes every model field for the settings form", () => {
    for (const field of Object.values(modelRenderSettingsSchema.shape)) expect(field.description).toBeTruthy();
    expect(nodeSettingsSchema.shape.models.description).toBeTruthy();
  });
});
