/** Creating a VitaBench world for a task: the domain string's DBs, its tools, a clock. */
import { PyDict } from "../../../lib/python/values";
import { DELIVERY_TOOLS } from "./delivery";
import { INSTORE_TOOLS } from "./instore";
import { OTA_TOOLS } from "./ota";
import type { Clock } from "./registry";
import { TOOLKIT_TOOLS } from "./toolkit";
import { DOMAINS, World, type Domain, type Language, type ToolDef } from "./world";

const TOOLS: Record<Domain, readonly ToolDef[]> = { delivery: DELIVERY_TOOLS, instore: INSTORE_TOOLS, ota: OTA_TOOLS };

/** Parse "delivery" / "instore" / "ota" or a comma list of them (upstream's cross-domain form). */
export function parseDomains(domain: string): Domain[] {
  const parts = domain.split(",");
  for (const p of parts) if (!(DOMAINS as readonly string[]).includes(p)) throw new Error(`unknown VitaBench domain "${p}" (delivery, instore, ota, or a comma list of them)`);
  return parts as Domain[];
}

export function createWorld(domain: string, environment: PyDict, language: Language, clock: Clock): World {
  return new World(parseDomains(domain), environment, language, clock, (d) => TOOLS[d], TOOLKIT_TOOLS);
}

export const languageOf = (lang: "zh" | "en"): Language => (lang === "en" ? "english" : "chinese");
export { World };
