/**
 * VitaBench's datasets as the run config names them (`vitabench:<domain>[/<lang>]`), the task file each needs
 * under $ENVACE_DATA_DIR/vitabench (upstream's data/vita/domains layout) and the report's columns. Shared by the
 * worker's environment, the launch check and the reports (the server may not import worker/).
 */
export type VitaLanguage = "zh" | "en";
export type VitaDomainKey = "delivery" | "instore" | "ota" | "cross";

/** The `domain` string upstream runs each dataset with (a cross-domain task merges all three). */
export const VITA_DOMAIN_STRING: Record<VitaDomainKey, string> = { delivery: "delivery", instore: "instore", ota: "ota", cross: "delivery,instore,ota" };
const FOLDER: Record<VitaDomainKey, string> = { delivery: "delivery", instore: "instore", ota: "ota", cross: "cross_domain" };

/** The task file (relative to $ENVACE_DATA_DIR/vitabench): tasks.json (zh) or tasks_en.json (en), as upstream's get_task_file_path. */
export function vitaTaskFile(domain: string, lang: VitaLanguage): string {
  const key = (Object.keys(VITA_DOMAIN_STRING) as VitaDomainKey[]).find((k) => k === domain || VITA_DOMAIN_STRING[k] === domain);
  if (!key) throw new Error(`unknown VitaBench domain "${domain}" (delivery, instore, ota, cross)`);
  return `${FOLDER[key]}/${lang === "en" ? "tasks_en.json" : "tasks.json"}`;
}

/** Table 1's VitaBench group: Cross, Deliv., Inst., OTA, Avg (the mean of the columns present). */
export const VITA_REPORT_COLUMNS: readonly { key: VitaDomainKey; label: string }[] = [
  { key: "cross", label: "Cross" },
  { key: "delivery", label: "Deliv." },
  { key: "instore", label: "Inst." },
  { key: "ota", label: "OTA" },
];
