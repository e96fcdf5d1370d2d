/**
 * Seeded sampling for an evaluation pass: every generation gets a seed derived from the pass's seed and
 * what is sampled (role and prompt), counting repeats of the same prompt — so a pass's samples are a
 * function of its seed whatever order concurrent rollouts reach the node in, two trials of one task
 * (identical first prompts) still sample independently, and two passes with different seeds differ.
 */
import { createHash } from "node:crypto";
import type { GenerateRequest, PolicyClient } from "../../engine/io";

export function seededPolicy(policy: PolicyClient, seed: number): PolicyClient {
  const seen = new Map<string, number>();
  return {
    generate(req: GenerateRequest) {
      if (req.sampling.seed !== undefined) return policy.generate(req);
      const key = createHash("sha1").update(req.role).update("\0").update(JSON.stringify(req.messages)).update("\0").update(JSON.stringify(req.tools ?? null)).digest("hex");
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      // 31 bits: servers add the sample's index to it (the embedded node: seed + i) and some take int32.
      const derived = createHash("sha1").update(`${seed}:${key}:${n}`).digest().readUInt32BE(0) >>> 1;
      return policy.generate({ ...req, sampling: { ...req.sampling, seed: derived } });
    },
  };
}
