/** Where a model's checkpoints live: tinker:// paths of this node and their folders under dataDir. */
import path from "node:path";
import { ID_PATTERN, UserError } from "../protocol";
import type { NodeState } from "./state";

const TINKER_PATH = /^tinker:\/\/([A-Za-z0-9_-]+)\/(?:(weights|sampler_weights)\/)?([A-Za-z0-9_-]+)$/;

export function parseTinkerPath(p: string): { modelId: string; kind: "weights" | "sampler_weights"; name: string } {
  const m = TINKER_PATH.exec(p);
  if (!m) throw new UserError(`path '${p}' is not a tinker:// path of this node (tinker://<model_id>/weights/<name> or .../sampler_weights/<name>)`);
  return { modelId: m[1], kind: (m[2] as "weights" | "sampler_weights" | undefined) ?? "sampler_weights", name: m[3] };
}

export function modelDir(st: NodeState, modelId: string, kind: "weights" | "sampler_weights", name: string): string {
  if (!ID_PATTERN.test(modelId) || !ID_PATTERN.test(name)) throw new UserError("invalid checkpoint path");
  return path.join(st.opts.dataDir, "models", modelId, kind, name);
}
