/**
 * Imported datasets (CM2 checklist format): import a file all-or-nothing in one transaction, list,
 * read with per-split counts, and page through instances without loading their bodies.
 *
 * An Instance row's `data` is the engine's normalised TaskInstance (lib/cm2.ts) as plain
 * JSON; the worker reads it back for runs whose config names `dataset:<id or name>`.
 */
import { Prisma } from "@prisma/client";
import { importCm2, type Cm2ImportError, type Cm2ImportResult } from "../../../lib/cm2";
import { importTasks, looksLikeTasks } from "../../../lib/tasks-jsonl";
import { prisma } from "../../../lib/db";
import { qwen3PromptLength } from "./prompt-length";
import { DomainError, notFound } from "../../lib/errors";
import { MAX_DATASET_BYTES } from "../../../lib/body-limits";

/** Largest file accepted, in bytes of UTF-8 text (lib/body-limits.ts: the request body limit follows from it). */
export { MAX_DATASET_BYTES } from "../../../lib/body-limits";
/** Errors listed back to the caller; the rest are counted. */
const MAX_REPORTED_ERRORS = 200;
const INSERT_CHUNK = 500;

/** Names are referenced from run configs as `dataset:<name>`, so they use the config's character set. */
export const DATASET_NAME_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

/** `cm2`: CM2 checklist rows; `tasks`: the simple JSONL of instructions plus checklist items (lib/tasks-jsonl.ts); `auto`: decided by the first row. */
export const datasetFormats = ["auto", "cm2", "tasks"] as const;

export interface ImportDatasetInput {
  name: string;
  text: string;
  format?: (typeof datasetFormats)[number];
  split: "train" | "test";
  skipInvalid: boolean;
  maxChecklists?: number;
  /** The reference's max_prompt_length: rows whose prompt exceeds it − 500 Qwen3 tokens are dropped; null = keep all. */
  maxPromptLength: number | null;
}

/** The reference drops prompts longer than max_prompt_length − 500 tokens (checklist_dataset.py). */
export const PROMPT_LENGTH_MARGIN = 500;

export interface LineError {
  line: number;
  message: string;
}

function lineErrors(errors: Cm2ImportError[]): LineError[] {
  return errors.slice(0, MAX_REPORTED_ERRORS).map((e) => ({ line: e.line, message: e.message }));
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export async function importDataset(input: ImportDatasetInput) {
  const bytes = Buffer.byteLength(input.text, "utf8");
  if (bytes > MAX_DATASET_BYTES) {
    throw new DomainError(
      "BAD_REQUEST",
      `the file is ${megabytes(bytes)}; the limit is ${megabytes(MAX_DATASET_BYTES)}. Split it into several files and import them as separate datasets.`,
      [{ path: "text", message: `file too large (${megabytes(bytes)} > ${megabytes(MAX_DATASET_BYTES)})` }],
    );
  }
  const format = input.format === "cm2" || input.format === "tasks" ? input.format : looksLikeTasks(input.text) ? "tasks" : "cm2";
  // Task lists carry no tool schemas of their own (their server's come at run time): no prompt-length filter.
  const parsed: Cm2ImportResult =
    format === "tasks"
      ? (() => {
          const r = importTasks(input.text, { skipInvalid: input.skipInvalid });
          return r.ok ? { ...r, filtered: [] } : r;
        })()
      : importCm2(input.text, {
          skipInvalid: input.skipInvalid,
          maxChecklists: input.maxChecklists,
          promptLength: input.maxPromptLength === null ? undefined : { maxTokens: input.maxPromptLength - PROMPT_LENGTH_MARGIN, count: qwen3PromptLength },
        });
  if (!parsed.ok) {
    const shown = lineErrors(parsed.errors);
    const more = parsed.errors.length - shown.length;
    throw new DomainError(
      "BAD_REQUEST",
      `${parsed.errors.length} invalid row${parsed.errors.length === 1 ? "" : "s"}; nothing was imported. ` +
        `First: line ${parsed.errors[0]!.line}: ${parsed.errors[0]!.message}` +
        (more > 0 ? ` (${more} more errors not listed)` : ""),
      shown.map((e) => ({ path: `line ${e.line}`, message: e.message })),
    );
  }
  const tooLong: LineError[] = parsed.filtered.map((f) => ({
    line: f.line,
    message: `prompt is ${f.tokens} Qwen3 tokens, over the limit of ${f.limit} (max prompt length ${f.limit + PROMPT_LENGTH_MARGIN} − ${PROMPT_LENGTH_MARGIN}); dropped as the reference does`,
  }));
  if (parsed.instances.length === 0) {
    const reported = [...lineErrors(parsed.skipped), ...tooLong.slice(0, MAX_REPORTED_ERRORS)];
    throw new DomainError(
      "BAD_REQUEST",
      parsed.filtered.length ? `no rows to import: ${parsed.filtered.length} prompt(s) over the length limit, ${parsed.skipped.length} invalid` : "no valid rows to import (every row was invalid)",
      reported.length ? reported.map((e) => ({ path: `line ${e.line}`, message: e.message })) : undefined,
    );
  }

  try {
    const dataset = await prisma.$transaction(
      async (tx) => {
        const created = await tx.dataset.create({ data: { name: input.name, format, instanceCount: parsed.instances.length }, select: datasetSelect });
        const rows = parsed.instances.map((instance) => ({
          datasetId: created.id,
          externalId: instance.id,
          split: input.split,
          // The normalised TaskInstance as plain JSON (CM2 instances carry no environment functions).
          data: JSON.parse(JSON.stringify(instance)) as Prisma.InputJsonValue,
        }));
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.instance.createMany({ data: rows.slice(i, i + INSERT_CHUNK) });
        return created;
      },
      { timeout: 120_000, maxWait: 30_000 },
    );
    return {
      dataset,
      imported: parsed.instances.length,
      skipped: lineErrors(parsed.skipped),
      skippedCount: parsed.skipped.length,
      /** Rows dropped for their prompt length, by line. */
      tooLong: tooLong.slice(0, MAX_REPORTED_ERRORS),
      tooLongCount: tooLong.length,
    };
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") {
      throw new DomainError("CONFLICT", `a dataset named "${input.name}" already exists; choose another name`, [{ path: "name", message: "already taken" }]);
    }
    throw err;
  }
}

/** Columns a dataset is shown with (the API's Dataset schema in schemas.ts mirrors them). */
export const datasetSelect = { id: true, name: true, format: true, instanceCount: true, createdAt: true } satisfies Prisma.DatasetSelect;

export async function listDatasets() {
  return prisma.dataset.findMany({ orderBy: { createdAt: "desc" }, select: datasetSelect });
}

export async function getDataset(id: string) {
  const dataset = await prisma.dataset.findUnique({ where: { id }, select: { id: true, name: true, format: true, instanceCount: true, createdAt: true } });
  if (!dataset) throw notFound("dataset", id);
  const bySplit = await prisma.instance.groupBy({ by: ["split"], where: { datasetId: id }, _count: { _all: true }, orderBy: { split: "asc" } });
  return { ...dataset, splits: bySplit.map((s) => ({ split: s.split, count: s._count._all })) };
}

export interface ListInstancesInput {
  datasetId: string;
  split?: "train" | "test";
  limit: number;
  /** externalId of the last row of the previous page. */
  cursor?: string | null;
}

interface InstanceListRow {
  id: string;
  externalId: string;
  split: string;
  dataSource: string | null;
  firstUserMessage: string | null;
  tools: number;
  userTurns: number;
  checklists: number;
}

/** Keyset-paged instance list; summary columns are computed in Postgres so bodies never leave the database. */
export async function listInstances(input: ListInstancesInput) {
  const exists = await prisma.dataset.findUnique({ where: { id: input.datasetId }, select: { id: true } });
  if (!exists) throw notFound("dataset", input.datasetId);
  const rows = await prisma.$queryRaw<InstanceListRow[]>`
    select i.id, i."externalId", i.split,
           i.data->>'dataSource' as "dataSource",
           left((select m->>'content' from jsonb_array_elements(i.data->'messages') m where m->>'role' = 'user' limit 1), 200) as "firstUserMessage",
           coalesce(jsonb_array_length(i.data->'tools'), 0)::int as tools,
           coalesce(jsonb_array_length(i.data->'checklists'->0), 0)::int as "userTurns",
           coalesce(jsonb_array_length(i.data->'checklists'), 0)::int as checklists
    from "instance" i
    where i."datasetId" = ${input.datasetId}
      ${input.split ? Prisma.sql`and i.split = ${input.split}` : Prisma.empty}
      ${input.cursor ? Prisma.sql`and i."externalId" > ${input.cursor}` : Prisma.empty}
    order by i."externalId"
    limit ${input.limit + 1}`;
  const hasMore = rows.length > input.limit;
  const items = hasMore ? rows.slice(0, input.limit) : rows;
  return { items, nextCursor: hasMore ? items[items.length - 1]!.externalId : null };
}
