/**
 * Which Tinker-compatible server a node runs — the ONE detection. The client's transport (retries,
 * long polls, recovery), the policy's loss semantics (worker/clients/loss-semantics.ts) and the node
 * doctor (lib/node-doctor) all read the answer the client resolved in start(); nothing else guesses.
 *
 * Evidence, strongest first: the embedded node announces itself in get_server_capabilities (`node.kind`);
 * hosted Tinker lives under thinkingmachines.dev/.ai; SkyRL tx answers GET / with its app name
 * ("Tinker API Mock", skyrl/tinker/api.py) but does not say which backend it runs, so its default (JAX)
 * is assumed and said — the policy's first forward_backward reply confirms or refutes it
 * (checkProfileAgainstReply). Anything else is taken for hosted Tinker's contract.
 */
import type { TinkerServerProfile } from "../../contracts/node-settings";

export type ResolvedProfile = Exclude<TinkerServerProfile, "auto">;

export interface ProfileEvidence {
  /** get_server_capabilities carried `node.kind: "embedded"`. */
  embedded: boolean;
  /** The base URL's host name. */
  hostname: string;
  /** The `name` GET / answered with (null: no JSON answer, or not asked). */
  rootName: string | null;
}

export interface DetectedProfile {
  profile: ResolvedProfile;
  /** Set when the profile is a guess (SkyRL tx's backend): the sentence to show the user, once. */
  assumed: string | null;
  /** What the answer rests on, for reports ("the node's tinker.server setting", "GET / names SkyRL tx", …). */
  basis: string;
}

export const isHostedTinkerHost = (hostname: string) => /(^|\.)thinkingmachines\.(dev|ai)$/.test(hostname);
export const isSkyrlRoot = (rootName: string | null) => rootName !== null && /tinker api mock/i.test(rootName);

/** Whether GET / is worth asking: only when the cheaper evidence does not already decide. */
export function needsRootProbe(evidence: Omit<ProfileEvidence, "rootName">): boolean {
  return !evidence.embedded && !isHostedTinkerHost(evidence.hostname);
}

/** The server family the evidence points at, whatever the node's setting says. */
function fromEvidence(e: ProfileEvidence): DetectedProfile {
  if (e.embedded) return { profile: "envace-embedded", assumed: null, basis: "the server announces itself as the EnvACE embedded node" };
  if (isHostedTinkerHost(e.hostname)) return { profile: "tinker", assumed: null, basis: `${e.hostname} is hosted Tinker` };
  if (isSkyrlRoot(e.rootName))
    return {
      profile: "skyrl-jax",
      assumed:
        "server profile auto: this looks like SkyRL tx, which does not say which backend it runs; assuming its default JAX backend (set the node's server profile to skyrl-train if it runs FSDP/Megatron)",
      basis: "GET / names SkyRL tx (backend not advertised; JAX, its default, assumed)",
    };
  return { profile: "tinker", assumed: null, basis: "no SkyRL or embedded-node signature: hosted Tinker's contract" };
}

/** The node's `tinker.server` setting when it names one, else what the evidence says. */
export function detectServerProfile(setting: TinkerServerProfile, evidence: ProfileEvidence): DetectedProfile {
  if (setting !== "auto") return { profile: setting, assumed: null, basis: "the node's tinker.server setting" };
  return fromEvidence(evidence);
}

const family = (p: ResolvedProfile) => (p === "skyrl-jax" || p === "skyrl-train" ? "SkyRL tx" : p === "envace-embedded" ? "the embedded node" : "hosted Tinker");

/**
 * A setting that contradicts the evidence (e.g. tinker.server "tinker" on a SkyRL tx server: the loss
 * would be scaled for the wrong reduction). Only families are compared: SkyRL's JAX and FSDP backends
 * look the same until a forward_backward reply. Null when they agree or the evidence is weak.
 */
export function profileConflict(setting: TinkerServerProfile, evidence: ProfileEvidence): string | null {
  if (setting === "auto") return null;
  const seen = fromEvidence(evidence);
  // "no signature" is not evidence against a setting (a proxy may hide GET /).
  if (seen.basis.startsWith("no SkyRL")) return null;
  if (family(seen.profile) === family(setting)) return null;
  return `the node's tinker.server setting says ${setting} (${family(setting)}), but ${seen.basis}; set tinker.server to "${seen.profile === "skyrl-jax" ? "skyrl-jax or skyrl-train" : seen.profile}" or "auto"`;
}
