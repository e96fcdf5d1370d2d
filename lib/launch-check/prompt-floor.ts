/**
 * The smallest prompt a role will be sent in a run, in tokens of the node model's renderer
 * (lib/renderers): what the context part of the launch check compares with the node's context length.
 * A prompt at or above the context length cannot be answered (the embedded node refuses it; other
 * servers truncate or fail), so when even the smallest does not fit, nothing of the run can.
 *
 * Measured here, from the same texts the worker sends:
 * - the tau2 user simulator's first request (its guidelines + scenario, then the greeting, with telecom's
 *   phone tools; lib/tau2), for every task the run uses — the user simulator is an OpenAI-compatible model
 *   that gets the messages whole;
 * - the policy's first act prompt of an imported dataset (the stored task's messages, rendered with its
 *   tools as TinkerPolicy renders them; for an MCP dataset without the server's tools, which only add to
 *   it), on a Tinker-compatible node;
 * - VitaBench (lib/vitabench/prompts.ts): the user simulator's first request (its persona prompt, then the greeting)
 *   for every task the run uses, and the agent's first prompt without the user's first message (its system prompt
 *   with the task's time, and the domain's tools) — the first task's, as tasks differ only in the date — for the
 *   policy on either kind of node (the server renders a chat node's prompt with the same template). tau2 and BFCL fit every policy prompt into the context
 *   (worker/envs/tau2/fit-context.ts), so their policy prompts are never too long; built-in domains are
 *   made for the tiny model.
 * Judges and tool simulators get transcripts that grow during an episode; they are not measured.
 */
import type { PrismaClient } from "@prisma/client";
import type { NodeRole } from "../node-refs";
import type { ChatRenderer, RenderMessage, RenderTool } from "../renderers";
import { policyRenderOptions } from "../renderers";
import { GREETING, userSystemPrompt } from "../tau2/prompts";
import { agentSystemPrompt, greeting, promptLanguage, userSystemPrompt as vitaUserSystemPrompt } from "../vitabench/prompts";
import { vitaToolSchemas } from "../vitabench/tools";
import type { DatasetView } from "./datasets";

export interface PromptFloor {
  /** Tokens of the smallest prompt. */
  tokens: number;
  /** Whose prompts, for the message: "tau2:retail user-simulator prompts". */
  what: string;
}

/** How the role samples on its node: the policy on a Tinker-compatible node renders its own prompts; everything else is chat. */
export type RoleProtocol = "tinker" | "chat";

/** Imported rows measured: the shortest by stored characters (a row's token count follows its length closely). */
const IMPORTED_ROWS = 32;

function minTokens(prompts: Iterable<number>): number | null {
  let min: number | null = null;
  for (const n of prompts) if (min === null || n < min) min = n;
  return min;
}

/** The user simulator's first request for each tau2 task (worker/envs/tau2/harness/user.ts). */
function tau2UserPrompts(view: Extract<DatasetView, { kind: "tau2" }>, renderer: ChatRenderer): number[] {
  const out: number[] = [];
  for (const d of view.domains) {
    const seen = new Set<string>();
    for (const task of d.tasks) {
      if (seen.has(task.id)) continue;
      seen.add(task.id);
      const messages: RenderMessage[] = [
        { role: "system", content: userSystemPrompt(d.userGuidelines, task) },
        { role: "user", content: GREETING },
      ];
      out.push(renderer.renderPrompt(messages, { addGenerationPrompt: true, ...(d.userTools ? { tools: d.userTools as RenderTool[] } : {}) }).length);
    }
  }
  return out;
}

interface StoredPrompt {
  messages: RenderMessage[];
  tools: RenderTool[];
}

/** The first act prompts of an imported dataset's tasks: the named ids, else the shortest rows of the split. */
async function importedPrompts(prisma: PrismaClient, view: Extract<DatasetView, { kind: "imported" }>): Promise<StoredPrompt[]> {
  const rows = view.instanceIds.length
    ? await prisma.$queryRaw<{ data: unknown }[]>`
        select data from "instance" where "datasetId" = ${view.id} and split = ${view.split} and "externalId" = any(${view.instanceIds}::text[])`
    : await prisma.$queryRaw<{ data: unknown }[]>`
        select data from "instance" where "datasetId" = ${view.id} and split = ${view.split}
        order by octet_length(coalesce(data->'messages', '[]'::jsonb)::text) + octet_length(coalesce(data->'tools', '[]'::jsonb)::text)
        limit ${IMPORTED_ROWS}`;
  const out: StoredPrompt[] = [];
  for (const { data } of rows) {
    const d = data as { messages?: unknown; tools?: unknown };
    if (!Array.isArray(d.messages)) continue; // a malformed row: the worker names it
    out.push({ messages: d.messages as RenderMessage[], tools: Array.isArray(d.tools) ? (d.tools as RenderTool[]) : [] });
  }
  return out;
}

/** The smallest prompt `role` gets in this run, or null when it is not measured (see the header). */
export async function promptFloor(
  prisma: PrismaClient,
  view: DatasetView,
  dataset: string,
  role: NodeRole,
  protocol: RoleProtocol,
  renderer: ChatRenderer,
  enableThinking: boolean | undefined,
): Promise<PromptFloor | null> {
  if (view.kind === "tau2" && role === "user simulator") {
    const tokens = minTokens(tau2UserPrompts(view, renderer));
    return tokens === null ? null : { tokens, what: `${dataset} user-simulator prompts` };
  }
  if (view.kind === "vitabench" && view.tasks.length) {
    const language = promptLanguage(view.dataset.lang);
    if (role === "user simulator") {
      const seen = new Set<string>();
      const counts: number[] = [];
      for (const t of view.tasks) {
        if (seen.has(t.id)) continue;
        seen.add(t.id);
        const messages: RenderMessage[] = [
          { role: "system", content: vitaUserSystemPrompt(language, t.userProfile, t.instructions) },
          { role: "user", content: greeting(language) },
        ];
        counts.push(renderer.renderPrompt(messages, { addGenerationPrompt: true }).length);
      }
      const tokens = minTokens(counts);
      return tokens === null ? null : { tokens, what: `${dataset} user-simulator prompts` };
    }
    if (role === "policy") {
      const first = view.tasks[0]!;
      const messages: RenderMessage[] = [{ role: "system", content: agentSystemPrompt(language, (first.environment.get("time") ?? "") as string) }];
      const tools = vitaToolSchemas(view.dataset.domainString, view.dataset.lang) as unknown as RenderTool[];
      return { tokens: renderer.renderPrompt(messages, policyRenderOptions(tools, enableThinking)).length, what: `${dataset} agent prompts (system prompt and tools, before the user's first message)` };
    }
    return null;
  }
  if (view.kind === "imported" && role === "policy" && protocol === "tinker") {
    const prompts = await importedPrompts(prisma, view);
    const tokens = minTokens(prompts.map((p) => renderer.renderPrompt(p.messages, policyRenderOptions(view.rowTools && p.tools.length ? p.tools : undefined, enableThinking)).length));
    return tokens === null ? null : { tokens, what: `${dataset} act prompts` };
  }
  return null;
}
