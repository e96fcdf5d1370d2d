/**
 * TEST DOUBLE — a policy that follows a script per task: for the task whose first user message is a key,
 * the act role makes the listed tool calls one per turn, then replies "Done."; the rehearse role answers
 * each call with `rehearse(name, args)` (default: `{"rehearsed": true}`). Deterministic, no model, for
 * tests of environments (MCP servers) where what the policy calls must be known. Token ids are character codes.
 */
import type { GenerateRequest, PolicyClient } from "../../worker/engine/io";
import { fakeGeneration } from "./shop-oracle";

export interface ScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export function scriptedToolPolicy(
  scripts: Record<string, ScriptedCall[]>,
  rehearse: (name: string, args: Record<string, unknown>) => string = () => '{"rehearsed": true}',
): PolicyClient & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(req) {
      requests.push(req);
      if (req.role === "rehearse") {
        const user = req.messages.find((m) => m.role === "user")?.content ?? "";
        // The rehearse prompt's last section, "Current tool to simulate:" (worker/engine/prompts.ts).
        const name = /^Current tool to simulate:\n- name: (\S+)/m.exec(user)?.[1] ?? "";
        const argsText = /- arguments \(JSON, parsed from caller's tool_call\):\n([\s\S]*?)(?:\n\n\/think)?$/.exec(user)?.[1] ?? "{}";
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(argsText) as Record<string, unknown>;
        } catch {
          /* leave empty */
        }
        return fakeGeneration(user, `\n<execution_result>\n${rehearse(name, args)}\n</execution_result>`);
      }
      const firstUser = req.messages.find((m) => m.role === "user")?.content ?? "";
      const script = scripts[firstUser] ?? [];
      const made = req.messages.filter((m) => m.role === "assistant").length;
      const next = script[made];
      const text = next ? `\n<tool_call>\n${JSON.stringify({ name: next.name, arguments: next.arguments })}\n</tool_call>` : "Done.";
      return fakeGeneration(firstUser, text);
    },
  };
}
