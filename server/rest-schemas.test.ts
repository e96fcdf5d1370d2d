/**
 * Output schemas strip what they do not name, so each must name exactly the columns its service
 * selects: a column added to a select without its schema would silently vanish from the API and the app.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { datasetOutput } from "./features/datasets/schemas";
import { datasetSelect } from "./features/datasets/service";
import { launchColumns } from "../lib/mcp/store";
import { mcpServerOutput } from "./features/mcp-servers/schemas";
import { mcpServerSelect } from "./features/mcp-servers/service";
import { listedNodeOutput } from "./features/nodes/schemas";
import { nodeSelect } from "./features/nodes/service";
import { runDetailOutput, runSummaryOutput } from "./features/runs/schemas";
import { runDetailSelect, runListSelect } from "./features/runs/service";
import { trajectorySummaryOutput } from "./features/trajectories/procedures/list";
import { trajectoryDetailSelect, trajectoryListSelect, turnSelect, verdictSelect } from "./features/trajectories/service";
import { trajectoryDetailOutput, turnOutput, verdictOutput } from "./features/trajectories/schemas";
import { studyDetailOutput, studySummaryOutput } from "./features/studies/schemas";
import { studySelect } from "./features/studies/service";

const keys = (schema: z.AnyZodObject) => Object.keys(schema.shape).sort();

describe("REST output schemas cover their selects", () => {
  it.each([
    ["runs list", runSummaryOutput, runListSelect],
    ["run detail", runDetailOutput, runDetailSelect],
    ["datasets", datasetOutput, datasetSelect],
    ["turns", turnOutput, turnSelect],
    ["checklist verdicts", verdictOutput, verdictSelect],
  ] as const)("%s", (_name, schema, select) => {
    expect(keys(schema)).toEqual(Object.keys(select).sort());
  });

  it("studies (a list row with its runs counted; a study with its runs, each with its cell, and its groups)", () => {
    expect(keys(studyDetailOutput)).toEqual([...Object.keys(studySelect), "runs", "groups"].sort());
    expect(keys(studySummaryOutput)).toEqual([...Object.keys(studySelect).filter((k) => k !== "baseConfig"), "runs"].sort());
    expect(keys(studyDetailOutput.shape.runs.element)).toEqual([...Object.keys(runListSelect), "cell"].sort());
  });

  it("trajectories (with their count of private test-time attempts)", () => {
    expect(keys(trajectorySummaryOutput)).toEqual([...Object.keys(trajectoryListSelect), "privateAttempts"].sort());
  });

  it("a trajectory with its turns (its detail select and its count of private test-time attempts)", () => {
    expect(keys(trajectoryDetailOutput)).toEqual([...Object.keys(trajectoryDetailSelect), "privateAttempts"].sort());
  });

  it("nodes (the key itself never, whether one is set always; the owner as addedBy, settings and doctor reports, with the caller's rights; requests in flight / limit)", () => {
    const selected = Object.keys(nodeSelect).filter((k) => k !== "createdBy");
    expect(keys(listedNodeOutput)).toEqual([...selected, "settings", "doctor", "addedBy", "hasApiKey", "canRemove", "canTest", "canEdit", "inFlight", "concurrencyLimit"].sort());
  });

  it("MCP servers (the launch columns, secrets encrypted, only as the public launch)", () => {
    const selected = Object.keys(mcpServerSelect).filter((k) => !(k in launchColumns));
    expect(keys(mcpServerOutput)).toEqual([...selected, "launch"].sort());
  });
});
