/**
 * Rolls the rehearsal fidelity of a step's tool turns up into `fidelity_stat` (per tool) and
 * `fidelity_divergence` (the step's 50 most frequent divergences, three example turns each), so the
 * world-model view of a run reads steps × tools rows instead of every turn (docs/FIDELITY.md).
 * Runs inside the step's commit transaction (worker/runner/persist.ts); the seeder and the migration
 * backfill use the same statements. Parameters: $1 run id, $2 phase (null = all), $3 step (null = all).
 */
import type { Prisma, PrismaClient } from "@prisma/client";

/** The step's compared tool turns (a tool call answered with a fidelity object). */
const COMPARED = `
  select t.id as tid, t.phase, t.step, u.index as ti, coalesce(u."toolCalls"->>'name', '(unknown tool)') as tool, u.fidelity as f
  from trajectory t join turn u on u."runId" = t."runId" and u."trajectoryId" = t.id
  where t."runId" = $1 and ($2::text is null or t.phase = $2::text) and ($3::int is null or t.step = $3::int)
    and u.fidelity is not null and u.role in ('rehearse', 'environment', 'simulator')`;

export const FIDELITY_STAT_SQL = `
  insert into fidelity_stat ("runId", phase, step, tool, comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
  select $1, phase, step, tool, count(*)::int,
    coalesce(sum((f->>'score')::float8), 0),
    (count(*) filter (where f->>'exact' = 'true'))::int,
    (count(*) filter (where f->>'errorAgreement' = 'true'))::int,
    (count(*) filter (where f->>'outcome' = 'invalid_rehearsal'))::int,
    (count(*) filter (where f->>'outcome' = 'both_errors'))::int
  from (${COMPARED}) c
  group by phase, step, tool`;

export const FIDELITY_DIVERGENCE_SQL = `
  insert into fidelity_divergence (id, "runId", phase, step, tool, path, rehearsed, "real", count, examples)
  select gen_random_uuid(), $1, phase, step, tool, path, rehearsed, "real", n, ex from (
    select phase, step, tool, path, rehearsed, "real", count(*)::int as n,
      jsonb_agg(jsonb_build_object('trajectoryId', tid, 'turnIndex', ti, 'step', step) order by tid, ti) filter (where k <= 3) as ex,
      row_number() over (partition by phase, step order by count(*) desc, tool, path, rehearsed nulls first, "real" nulls first) as rk
    from (
      select c.tid, c.ti, c.phase, c.step, c.tool, e->>'path' as path, e->>'rehearsed' as rehearsed, e->>'real' as "real",
        row_number() over (partition by c.phase, c.step, c.tool, e->>'path', e->>'rehearsed', e->>'real' order by c.tid, c.ti) as k
      from (${COMPARED}) c
      cross join lateral jsonb_array_elements(case when jsonb_typeof(c.f->'divergences') = 'array' then c.f->'divergences' else '[]'::jsonb end) e
    ) d
    group by phase, step, tool, path, rehearsed, "real"
  ) g
  where rk <= 50`;

type Db = Pick<PrismaClient, "$executeRawUnsafe"> | Prisma.TransactionClient;

/** Roll up one step (or, with nulls, every step of the run). Replaces earlier rows of the same scope. */
export async function rollupFidelity(db: Db, runId: string, phase: string | null, step: number | null): Promise<void> {
  const scope = `"runId" = $1 and ($2::text is null or phase = $2::text) and ($3::int is null or step = $3::int)`;
  await db.$executeRawUnsafe(`delete from fidelity_stat where ${scope}`, runId, phase, step);
  await db.$executeRawUnsafe(`delete from fidelity_divergence where ${scope}`, runId, phase, step);
  await db.$executeRawUnsafe(FIDELITY_STAT_SQL, runId, phase, step);
  await db.$executeRawUnsafe(FIDELITY_DIVERGENCE_SQL, runId, phase, step);
}
