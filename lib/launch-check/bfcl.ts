/**
 * The launch check's part for BFCL's outside resources (`bfcl.search`, `bfcl.embeddings`): each node named
 * is registered and of the kind the resource needs — a search node (kind search) for web search, an
 * OpenAI-compatible node (kind openai, e.g. vLLM serving an embedding model) for memory_vector's embeddings.
 */
import type { PrismaClient } from "@prisma/client";
import type { RunConfig } from "../../contracts/run-config";
import type { LaunchProblem } from "./problems";

export async function bfclResourceProblems(config: RunConfig, prisma: PrismaClient): Promise<LaunchProblem[]> {
  const wanted: { path: string; node: string; kinds: string[]; what: string }[] = [];
  if (config.bfcl?.search) wanted.push({ path: "bfcl.search.node", node: config.bfcl.search.node, kinds: ["search"], what: "a search node (kind search: a SerpAPI-compatible search API)" });
  if (config.bfcl?.embeddings) {
    wanted.push({ path: "bfcl.embeddings.node", node: config.bfcl.embeddings.node, kinds: ["openai"], what: "an OpenAI-compatible node serving /v1/embeddings (kind openai, e.g. vLLM serving an embedding model)" });
  }
  if (wanted.length === 0) return [];
  const rows = await prisma.node.findMany({ where: { name: { in: wanted.map((w) => w.node) } }, select: { name: true, kind: true } });
  return wanted.flatMap((w): LaunchProblem[] => {
    const row = rows.find((r) => r.name === w.node);
    if (!row) return [{ path: w.path, message: `node "${w.node}" is not registered; add ${w.what} on the Nodes page` }];
    if (!w.kinds.includes(row.kind)) return [{ path: w.path, message: `node "${w.node}" is of kind ${row.kind}; ${w.path} needs ${w.what}` }];
    return [];
  });
}
