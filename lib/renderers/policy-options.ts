/**
 * How every prompt of a policy sampled over the Tinker protocol is rendered (worker/clients/tinker-policy.ts):
 * the reference's incremental caller buffer (each past assistant turn keeps its <think> text;
 * docs/ARCHITECTURE.md, *Deliberate differences from the reference*), tool-call arguments written by the template's own tojson (as the model
 * writes them), the node model's thinking switch. The launch check (lib/launch-check) measures policy
 * prompts with the same options.
 */
import type { RenderOptions, RenderTool } from "./types";

export function policyRenderOptions(tools: RenderTool[] | undefined, enableThinking: boolean | undefined): RenderOptions {
  return {
    tools,
    addGenerationPrompt: true,
    history: "incremental",
    parseToolArguments: true,
    ...(enableThinking !== undefined ? { enableThinking } : {}),
  };
}
