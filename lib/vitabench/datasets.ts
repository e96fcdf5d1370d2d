/**
 * VitaBench's datasets as the run config names them (`vitabench:<domain>[/<lang>]`), the task file each needs
 * under $ENVACE_DATA_DIR/vitabench (upstream's data/vita/domains layout) and the report's columns. Shared by the
 * worker's environment, the launch check, the run-config schema and the reports (the server may not import worker/).
 */
export type VitaLanguage = "zh" | "en";
export type VitaDomainKey = "delivery" | "instore" | "ota" | "cross";

export const VITA_DATASET_PREFIX = "vitabench:";
export const VITA_DOMAINS: readonly VitaDomainKey[] = ["delivery", "instore", "ota", "cross"];
export const VITA_LANGUAGES: readonly VitaLanguage[] = ["zh", "en"];
/** Upstream's DEFAULT_LANGUAGE ("chinese"): a dataset without /<lang> runs the Chinese tasks and prompts. */
export const VITA_DEFAULT_LANGUAGE: VitaLanguage = "zh";
/** Tasks in each of upstream's task files (100 per domain and language at 96f3b85). */
export const VITA_TASKS_PER_FILE = 100;

/** The `domain` string upstream runs each dataset with (a cross-domain task merges all three). */
export const VITA_DOMAIN_STRING: Record<VitaDomainKey, string> = { delivery: "delivery", instore: "instore", ota: "ota", cross: "delivery,instore,ota" };
const FOLDER: Record<VitaDomainKey, string> = { delivery: "delivery", instore: "instore", ota: "ota", cross: "cross_domain" };

/** The task file (relative to $ENVACE_DATA_DIR/vitabench): tasks.json (zh) or tasks_en.json (en), as upstream's get_task_file_path. */
export function vitaTaskFile(domain: string, lang: VitaLanguage): string {
  const key = (Object.keys(VITA_DOMAIN_STRING) as VitaDomainKey[]).find((k) => k === domain || VITA_DOMAIN_STRING[k] === domain);
  if (!key) throw new Error(`unknown VitaBench domain "${domain}" (delivery, instore, ota, cross)`);
  return `${FOLDER[key]}/${lang === "en" ? "tasks_en.json" : "tasks.json"}`;
}

export interface VitaDataset {
  /** The dataset reference as written, e.g. "vitabench:delivery/en". */
  ref: string;
  domain: VitaDomainKey;
  lang: VitaLanguage;
  /** Upstream's domain string ("delivery,instore,ota" for cross). */
  domainString: string;
  /** The task file relative to $ENVACE_DATA_DIR/vitabench. */
  taskFile: string;
}

/** `vitabench:<delivery|instore|ota|cross>[/<zh|en>]`, or a message saying what is wrong. */
export function parseVitaDataset(ref: string): { ok: true; dataset: VitaDataset } | { ok: false; message: string } {
  if (!ref.startsWith(VITA_DATASET_PREFIX)) return { ok: false, message: `${ref} is not a VitaBench dataset (vitabench:<domain>[/<lang>])` };
  const [domain, lang = VITA_DEFAULT_LANGUAGE, ...rest] = ref.slice(VITA_DATASET_PREFIX.length).split("/");
  if (!(VITA_DOMAINS as readonly string[]).includes(domain!)) {
    return { ok: false, message: `unknown VitaBench domain "${domain}" (available: ${VITA_DOMAINS.map((d) => VITA_DATASET_PREFIX + d).join(", ")})` };
  }
  if (rest.length || !(VITA_LANGUAGES as readonly string[]).includes(lang)) {
    return { ok: false, message: `unknown VitaBench language "${[lang, ...rest].join("/")}" (zh or en: ${VITA_DATASET_PREFIX}${domain}/zh, ${VITA_DATASET_PREFIX}${domain}/en)` };
  }
  const key = domain as VitaDomainKey;
  const l = lang as VitaLanguage;
  return { ok: true, dataset: { ref, domain: key, lang: l, domainString: VITA_DOMAIN_STRING[key], taskFile: vitaTaskFile(key, l) } };
}

/** Table 1's VitaBench group: Cross, Deliv., Inst., OTA, Avg (the mean of the four). */
export const VITA_REPORT_COLUMNS: readonly { key: VitaDomainKey; label: string }[] = [
  { key: "cross", label: "Cross" },
  { key: "delivery", label: "Deliv." },
  { key: "instore", label: "Inst." },
  { key: "ota", label: "OTA" },
];

/** The task files upstream ships that the shared data folder leaves out (each 4 MiB or larger): users supply them. */
export const VITA_SUPPLIED_FILES: readonly string[] = ["ota/tasks.json", "ota/tasks_en.json", "cross_domain/tasks.json", "cross_domain/tasks_en.json", "instore/tasks.json"];
