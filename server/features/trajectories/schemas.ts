/**
 * Output schemas of a trajectory with its turns and verdicts (GET /runs/{runId}/trajectories/{id}).
 * They mirror `trajectoryDetailSelect`, `turnSelect` and `verdictSelect` in service.ts field by field —
 * a field missing here is stripped from the response (server/rest-schemas.test.ts holds them together).
 * JSON columns are documented with the shapes worker/runner/persist.ts writes and validated loosely on
 * the way out, so a row written by an older worker still reads.
 */
import { z } from "zod";
import { jsonColumn, storedEnum } from "../../trpc/rest";
import { trajectorySummaryOutput } from "./procedures/list";

const toolCall = z
  .object({
    id: z.string().nullish().describe("The call's id (OpenAI tool_call_id), when the policy gave one"),
    name: z.string(),
    arguments: z.unknown().describe("The arguments as the policy wrote them (JSON text)"),
  })
  .passthrough();

const fidelity = z
  .object({
    score: z.number().describe("0..1 (docs/FIDELITY.md)"),
    exact: z.boolean(),
    errorAgreement: z.boolean(),
    outcome: z.string(),
    divergences: z.array(z.object({}).passthrough()).describe("The first divergences found: path, rehearsed and real value"),
  })
  .partial()
  .passthrough();

export const turnOutput = z
  .object({
    index: z.number().int().describe("Position in the trajectory, from 0"),
    role: storedEnum(["act", "rehearse", "environment", "simulator", "user", "judge", "system"]),
    text: z.string().describe("The raw generation (act, rehearse) or the message (user, environment)"),
    toolCalls: jsonColumn(z.union([z.array(toolCall), toolCall]).nullable()).describe("The act's parsed tool calls (a list), or the one call a tool turn answers"),
    rehearsedResponse: z.string().nullable().describe("The world model's rehearsed tool response"),
    realResponse: z.string().nullable().describe("The real tool response (shadow execution, the environment paradigm)"),
    fidelity: jsonColumn(fidelity.nullable()).describe("Rehearsed vs real response, when both exist"),
    errorCode: z.string().nullable().describe("The reference's parse error code of a generation that did not parse, e.g. NO_TOOL_CALL"),
    promptTokens: z.number().int(),
    responseTokens: z.number().int(),
    advantage: z.number().nullable().describe("The turn's GRPO advantage (training steps)"),
  })
  .openapi({ ref: "Turn" });

export const verdictOutput = z
  .object({
    id: z.string().uuid(),
    userTurn: z.number().int(),
    turnIndex: z.number().int().nullable().describe("Turn.index of the act step it judges, when it judges one step"),
    itemId: z.string(),
    question: z.string(),
    weight: z.number(),
    passed: z.boolean(),
    callFailed: z.boolean().describe("The judge call or the judged tool call failed"),
    analysis: jsonColumn(z.record(z.unknown()).nullable()).describe("{ source, checklist, step, required, analysis?, error? }"),
  })
  .openapi({ ref: "ChecklistVerdict" });

export const trajectoryDetailOutput = trajectorySummaryOutput
  .extend({
    phase: storedEnum(["train", "eval", "private"]).describe("private: a test-time rehearsal attempt behind an eval trajectory (parentId)"),
    summary: jsonColumn(z.record(z.unknown())).describe("{ episodeReward, won, assistantTurns, userTurns, microSteps, toolCalls, dataSource, rolloutId, judgements, fidelity, testTime? }"),
    createdAt: z.date(),
    parentId: z.string().uuid().nullable().describe("The committed trajectory a private attempt belongs to"),
    run: z.object({ name: z.string(), paradigm: z.string(), archivedAt: z.date().nullable().describe("When the run's turns were archived: until a restore, `turns` is empty") }),
  })
  .openapi({ ref: "Trajectory" });

export const MAX_TURNS_PAGE = 200;

export const trajectoryWithTurnsOutput = z.object({
  trajectory: trajectoryDetailOutput,
  verdicts: z.array(verdictOutput).describe("Every checklist verdict of the trajectory"),
  turns: z.array(turnOutput).describe("One page of turns, in order, from turnsFrom"),
  nextTurnsFrom: z.number().int().nullable().describe("Pass as turnsFrom for the next page of turns; null on the last page"),
});
