/**
 * A test-time episode (worker/engine/testtime.ts): the committed execution, the private attempts that
 * preceded it (trajectories of phase "private" whose parentId is the committed one), each attempt's
 * assessment and suggestion, and the memory. Asked for by the id of the committed trajectory or of any of
 * its attempts. Stored records are validated on the way out (contracts/test-time.ts).
 */
import { prisma } from "../../../lib/db";
import { privateAttemptSummarySchema, testTimeRecordSchema } from "../../../contracts/test-time";
import { DomainError, notFound } from "../../lib/errors";
import { trajectoryListSelect } from "./service";

const summaryOf = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export async function getTestTimeEpisode(id: string) {
  const start = await prisma.trajectory.findUnique({ where: { id }, select: { id: true, parentId: true } });
  if (!start) throw notFound("trajectory", id);
  const committedId = start.parentId ?? start.id;
  const committed = await prisma.trajectory.findUnique({
    where: { id: committedId },
    select: { ...trajectoryListSelect, summary: true, run: { select: { name: true } } },
  });
  if (!committed) throw notFound("trajectory", committedId);
  const stored = summaryOf(committed.summary).testTime;
  if (stored === undefined) throw new DomainError("NOT_FOUND", `trajectory ${committedId} is not a test-time execution (its evaluation ran without test-time rehearsal)`);
  const record = testTimeRecordSchema.safeParse(stored);
  if (!record.success) {
    const issue = record.error.issues[0]!;
    throw new DomainError("CONFLICT", `the test-time record of trajectory ${committedId} is malformed: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const rows = await prisma.trajectory.findMany({
    where: { parentId: committedId },
    orderBy: { rolloutIndex: "asc" },
    select: { ...trajectoryListSelect, summary: true },
  });
  const { summary: _summary, run, ...header } = committed;
  return {
    run: { id: committed.runId, name: run.name },
    committed: header,
    record: record.data,
    attempts: rows.map(({ summary, ...attempt }) => {
      const feedback = privateAttemptSummarySchema.safeParse(summaryOf(summary).privateAttempt);
      return { ...attempt, feedback: feedback.success ? feedback.data : null };
    }),
  };
}
