/**
 * The launch check's part for FinMCP-Bench (finmcp:<file>): the sample file in `$ENVACE_DATA_DIR/<finmcp.folder>` (the
 * user supplies it: the data is CC-BY-NC-SA-4.0 and never shipped), its samples readable, the task ids positions of it,
 * and what answers the tools — the tool-schema file for a replay, a registered MCP server (with the tools its last test
 * listed) for upstream's protocol. A host without a data directory at all leaves the file checks to the worker, which
 * runs this same check before the first step.
 */
import { existsSync } from "node:fs";
import type { PrismaClient } from "@prisma/client";
import type { RunConfig } from "../../contracts/run-config";
import { chooseFinmcpSamples, FinmcpDataError, finmcpFiles, loadFinmcpSamples, loadFinmcpToolSchema } from "../finmcp/data";
import { parseFinmcpDataset, parseFinmcpEnvironment } from "../finmcp/datasets";
import { storedToolsOf } from "../mcp/store";
import { dataDir } from "../tau2/tasks";
import type { LaunchProblem } from "./problems";

const SUPPLY = "supply upstream's file from the FinMCP-Bench dataset (Hugging Face DianJin/FinMCP-Bench; CC-BY-NC-SA-4.0, so the product does not ship it)";

export async function finmcpProblems(prisma: PrismaClient, config: RunConfig): Promise<LaunchProblem[]> {
  const parsed = parseFinmcpDataset(config.data.dataset);
  if (!parsed.ok) return [{ path: "data.dataset", message: parsed.message }];
  const problems: LaunchProblem[] = [];
  const source = parseFinmcpEnvironment(config.finmcp.environment ?? "");
  if (source?.kind === "mcp") {
    const server = await prisma.mcpServer.findUnique({ where: { name: source.server }, select: { tools: true } });
    if (!server) problems.push({ path: "finmcp.environment", message: `no MCP server named "${source.server}" is registered: an admin registers upstream's server (Qieman MCP, its URL from qieman.com) on the MCP servers page` });
    else if (storedToolsOf(server.tools).length === 0)
      problems.push({ path: "finmcp.environment", message: `MCP server ${source.server} has listed no tools yet: run Test on the MCP servers page (FinMCP sends the server's tool schemas with every request)` });
  }
  // No data directory on this host at all (a web host without benchmark data): the worker checks the files.
  if (!existsSync(dataDir())) return problems;
  const files = finmcpFiles(parsed.dataset.file, { folder: config.finmcp.folder, schema: config.finmcp.toolSchema });
  if (!existsSync(files.samples)) {
    problems.push({ path: "data.dataset", message: `FinMCP-Bench needs ${files.samples}: ${SUPPLY}` });
    return problems;
  }
  try {
    const samples = loadFinmcpSamples(files.samples);
    chooseFinmcpSamples(samples.length, config.data.instanceIds, files.samples);
  } catch (e) {
    if (!(e instanceof FinmcpDataError)) throw e;
    problems.push({ path: e.message.startsWith("data.instanceIds") ? "data.instanceIds" : "data.dataset", message: e.message.replace(/^data\.instanceIds: /, "") });
  }
  if (source?.kind === "replay") {
    if (!existsSync(files.schema)) problems.push({ path: "finmcp.toolSchema", message: `a FinMCP replay sends the tool schemas with every request and needs ${files.schema}: supply upstream's MCP_SCHEMA file (an OpenAI tools array, from qieman.com)` });
    else
      try {
        loadFinmcpToolSchema(files.schema);
      } catch (e) {
        if (!(e instanceof FinmcpDataError)) throw e;
        problems.push({ path: "finmcp.toolSchema", message: e.message });
      }
  }
  return problems;
}
