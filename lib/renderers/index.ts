/**
 * Chat renderers: real tokenizers and official chat templates (token in / token out). See
 * registry.ts for where renderers come from and how a model gets one, types.ts for the interface.
 */
export * from "./types";
export { HfChatRenderer } from "./hf";
export { policyRenderOptions } from "./policy-options";
export { inferRendererName, loadRenderer, readTokenizerDir, rendererForModelOrDir, rendererNames, resolveRenderer, type ModelRenderSettings, type RendererName, type ResolvedRenderer } from "./registry";
export { parseRenderCases, renderCaseSchema, renderMessageSchema, renderToolSchema, type RenderCase } from "./schema";
