/**
 * The τ²-bench datasets and instance ids, pure (the run-config schema and the browser import it):
 * `tau2:retail`, `tau2:airline`, `tau2:telecom`, and `tau2:all` for the three in one run.
 */
export const TAU2_DOMAINS = ["retail", "airline", "telecom"] as const;
export type Tau2Domain = (typeof TAU2_DOMAINS)[number];
export const TAU2_RETAIL_DATASET = "tau2:retail";
/** The three domains in one run (the paper's τ² column). */
export const TAU2_ALL_DATASET = "tau2:all";
export const tau2Dataset = (domain: Tau2Domain) => `tau2:${domain}`;
export const TAU2_DATASETS = [...TAU2_DOMAINS.map(tau2Dataset), TAU2_ALL_DATASET];
/** The dataset pattern's tau2 part (contracts/run-config.ts). */
export const TAU2_DATASET_PATTERN = "tau2:(?:retail|airline|telecom|all)";

/** The domains a `tau2:…` dataset runs, or null for an unknown one. */
export function tau2DomainsOf(dataset: string): Tau2Domain[] | null {
  if (dataset === TAU2_ALL_DATASET) return [...TAU2_DOMAINS];
  const d = dataset.startsWith("tau2:") ? dataset.slice(5) : "";
  return (TAU2_DOMAINS as readonly string[]).includes(d) ? [d as Tau2Domain] : null;
}

/** Whether the domain's user acts on their own device with tools (telecom): its user simulator must call tools. */
export const tau2UserHasTools = (domain: Tau2Domain) => domain === "telecom";

/** The display names of the paper's τ² columns. */
export const TAU2_DOMAIN_LABELS: Record<Tau2Domain, string> = { retail: "Retail", airline: "Airline", telecom: "Telecom" };

/** "tau2:<domain>/<task id>" ⇄ task id (data.instanceIds takes either form for one domain; tau2:all needs the prefix). */
export const tau2InstanceIdFor = (domain: Tau2Domain, taskId: string) => `tau2:${domain}/${taskId}`;
export const tau2InstanceId = (taskId: string) => tau2InstanceIdFor("retail", taskId);
export const tau2TaskIdOf = (instanceId: string) => (instanceId.startsWith(`${TAU2_RETAIL_DATASET}/`) ? instanceId.slice(TAU2_RETAIL_DATASET.length + 1) : instanceId);

/** An instance id's domain and task id: "tau2:telecom/<id>", or a bare id of `fallback`'s domain (null: a prefix is needed). */
export function parseTau2InstanceId(ref: string, fallback: Tau2Domain | null): { domain: Tau2Domain; taskId: string } | null {
  for (const domain of TAU2_DOMAINS) if (ref.startsWith(`tau2:${domain}/`)) return { domain, taskId: ref.slice(`tau2:${domain}/`.length) };
  return fallback ? { domain: fallback, taskId: ref } : null;
}
