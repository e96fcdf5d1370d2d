/** persistStep against real Postgres: one transaction, fenced on the claim, untrusted text stored safely. */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma, signUp } from "../../test/helpers";
import { syntheticStep } from "../../bench/persist";
import { ClaimLostError, persistStep } from "./persist";

describe("persistStep", () => {
  let runId: string;
  beforeAll(async () => {
    const user = await signUp("member");
    const run = await prisma.run.create({
      data: { name: "persist", kind: "train", status: "running", workerId: "w1", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 3, createdById: user.id },
    });
    runId = run.id;
  });

  it("commits every row of a step, with NUL and lone surrogates in model output replaced", async () => {
    const step = syntheticStep(1, 120, 2, 2);
    const act = step.trajectories[0]!.turns.find((t) => t.role === "act")!;
    act.text = "bad\u0000byte and a lone \ud800 surrogate, a pair \ud83d\ude00 and a literal \\u0000";
    act.calls![0]!.argumentsJson = '{"city":"Par\u0000is"}';
    const written = await persistStep(prisma, { runId, workerId: "w1", result: step, phase: "train", startedAt: new Date(), progress: { step: 1, total: 3, etaSeconds: 2 } });
    expect(written).toEqual({ turns: 120, trajectories: 4 });
    expect(await prisma.turn.count({ where: { trajectory: { runId, step: 1 } } })).toBe(120);
    expect(await prisma.checklistVerdict.count({ where: { trajectory: { runId, step: 1 } } })).toBe(step.trajectories.reduce((n, t) => n + t.verdicts.length, 0));
    const stored = await prisma.turn.findFirstOrThrow({ where: { trajectory: { runId, step: 1, rolloutIndex: 0, groupId: step.trajectories[0]!.groupId }, index: act.index } });
    expect(stored.text).toBe("bad\ufffdbyte and a lone \ufffd surrogate, a pair \ud83d\ude00 and a literal \\u0000");
    expect(stored.toolCalls).toEqual([{ id: act.calls![0]!.id, name: act.calls![0]!.name, arguments: '{"city":"Par\ufffdis"}' }]);
    const rehearse = await prisma.turn.findFirstOrThrow({ where: { trajectory: { runId, step: 1 }, role: "rehearse" } });
    expect(rehearse.rehearsedResponse).not.toBeNull();
    expect(rehearse.fidelity).toMatchObject({ score: expect.any(Number) });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).progressStep).toBe(1);
  });

  it("writes nothing when the worker lost its claim or the step was already committed", async () => {
    await expect(persistStep(prisma, { runId, workerId: "someone-else", result: syntheticStep(2, 40, 1, 2), phase: "train", startedAt: new Date() })).rejects.toBeInstanceOf(ClaimLostError);
    await expect(persistStep(prisma, { runId, workerId: "w1", result: syntheticStep(1, 40, 1, 2), phase: "train", startedAt: new Date() })).rejects.toThrow();
    expect(await prisma.trajectory.count({ where: { runId } })).toBe(4);
    expect(await prisma.turn.count({ where: { trajectory: { runId } } })).toBe(120);
  });
});
