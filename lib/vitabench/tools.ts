/**
 * The agent's tools as upstream sends them: each Tool's `openai_schema` (vita/environment/tool.py over the domain's
 * tools_schema.py descriptions), in Environment.get_tools() order, per language. tool-schemas.json is generated from
 * upstream's own code (scripts/vitabench/make_tool_schemas.py); worker/envs/vitabench checks the order against its
 * tool dispatcher.
 */
import type { ToolSchema } from "../../worker/engine/io";
import schemas from "./tool-schemas.json";
import type { VitaLanguage } from "./datasets";

type SchemaFile = { order: Record<string, string[]> } & Record<VitaLanguage, Record<string, ToolSchema>>;
const file = schemas as unknown as SchemaFile;

/** The tools of upstream's domain string ("delivery", …, "delivery,instore,ota") in one language. */
export function vitaToolSchemas(domainString: string, lang: VitaLanguage): ToolSchema[] {
  const order = file.order[domainString];
  if (!order) throw new Error(`no VitaBench tool list for domain "${domainString}"`);
  return order.map((name) => file[lang][name]!);
}

/** The tool names of a domain string in upstream's order. */
export const vitaToolNames = (domainString: string): readonly string[] => file.order[domainString] ?? [];
