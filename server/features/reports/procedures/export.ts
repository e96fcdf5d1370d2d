import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { exportReportFile } from "../service";

/** `md` is the Markdown export (the app's "Markdown" button); the others are named as the app names them. */
export const reportExportFormats = ["md", "csv", "latex", "json"] as const;

export const exportReportInput = z.object({
  id: z.string().uuid("report id must be a UUID"),
  format: z.enum(reportExportFormats).describe("md: the report as Markdown (GFM tables, $math$, figures); csv: one row per run and benchmark; latex: a booktabs table; json: the whole report document"),
});

export const exportReportOutput = z.object({
  fileName: z.string().describe("A file name for the export, from the report title"),
  mediaType: z.string(),
  content: z.string().describe("The exported file's text"),
});

export const exportProcedure = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/reports/{id}/export",
      tag: "reports",
      access: "read",
      summary: "Export a report as Markdown, CSV, LaTeX or JSON",
      description: "The same files the app's export buttons make, from the same report document (live results, or the frozen snapshot).",
      errors: { 404: "No such report" },
    }),
  )
  .input(exportReportInput)
  .output(exportReportOutput)
  .query(({ input }) => exportReportFile(input.id, input.format));
