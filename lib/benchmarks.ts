/**
 * Every benchmark a run can evaluate on, as `data.dataset` values, grouped the way the new-run form's
 * benchmark picker shows them: BFCL v4 (its categories are chosen in the BFCL picker), the τ²-bench
 * domains, the built-in domains, every imported dataset, and every imported dataset against every
 * registered MCP server. Pure: the form passes what the API lists.
 */
import { BUILTIN_DATASET_PREFIX, builtinDomainNames } from "../contracts/run-config";
import { benchmarkLabel } from "./test-time";

export interface BenchmarkOption {
  dataset: string;
  label: string;
  group: "BFCL v4" | "τ²-bench" | "Built-in domains" | "Imported datasets" | "MCP servers";
}

/** The τ²-bench domains the product runs (lib/tau2; the browser cannot import its file readers). */
export const TAU2_DOMAINS = ["tau2:retail"] as const;

export function benchmarkOptions(imported: readonly { name: string }[] = [], mcpServers: readonly { name: string }[] = []): BenchmarkOption[] {
  return [
    { dataset: "bfcl:multi_turn", label: "BFCL v4 (choose categories below)", group: "BFCL v4" },
    ...TAU2_DOMAINS.map((d) => ({ dataset: d, label: benchmarkLabel(d), group: "τ²-bench" as const })),
    ...builtinDomainNames.map((d) => ({ dataset: `${BUILTIN_DATASET_PREFIX}${d}`, label: benchmarkLabel(`${BUILTIN_DATASET_PREFIX}${d}`), group: "Built-in domains" as const })),
    ...imported.map((d) => ({ dataset: `dataset:${d.name}`, label: d.name, group: "Imported datasets" as const })),
    ...mcpServers.flatMap((s) => imported.map((d) => ({ dataset: `mcp:${s.name}/${d.name}`, label: `${d.name} on ${s.name}`, group: "MCP servers" as const }))),
  ];
}

/** The option a dataset value belongs to (any bfcl:… value is the BFCL option). */
export function benchmarkOf(dataset: string, options: readonly BenchmarkOption[]): BenchmarkOption | undefined {
  return dataset.startsWith("bfcl:") ? options.find((o) => o.group === "BFCL v4") : options.find((o) => o.dataset === dataset);
}
