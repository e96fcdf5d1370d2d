/**
 * A Tinker server's checkpoint evaluated on an OpenAI-compatible node (vLLM) as a LoRA adapter, by a real
 * worker process against real Postgres: the checkpoint's archive is fetched from SkyRL tx (its double:
 * the 302 to /download, a .tar.gz adapter), unpacked into the vLLM node's lora.adapterDir, loaded by
 * POST /v1/load_lora_adapter (vLLM's double, reading the adapter from its own mount of that folder), and
 * every rollout samples the adapter by its name. A second evaluation reuses the loaded adapter; a vLLM
 * without runtime LoRA updating, or with a smaller --max-lora-rank, fails the run naming what to change.
 */
import { mkdtempSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Prisma } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { TinkerClient } from "../../lib/clients/tinker-client";
import { registerCheckedNode } from "../../test/fixtures/doctor-report";
import { SkyRLDouble } from "../../test/doubles/skyrl-tinker";
import { startVllmDouble, type VllmDouble } from "../../test/doubles/vllm-openai";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { startWorkerProcess, type Child } from "../../test/processes";

const databaseUrl = inject("databaseUrl");
const MODEL = "Qwen/Qwen3-8B";

describe("a checkpoint evaluated on vLLM as a LoRA adapter", () => {
  let member: TestUser;
  let worker: Child;
  let skyrl: SkyRLDouble;
  let vllm: VllmDouble;
  let staticVllm: VllmDouble;
  let smallVllm: VllmDouble;
  let adapterDir: string;
  let samplerPath: string;
  let checkpointId: string;

  const finished = async (id: string) => {
    const caller = await callerFor(member.headers);
    return eventually(async () => {
      const r = await caller.runs.get({ id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 180_000, `run ${id} to finish\n${worker.output()}`);
  };
  const evaluation = (node: string): RunConfigInput => ({
    kind: "eval",
    policy: { node, model: MODEL, checkpoint: { run: "qwen-train", step: "latest" } },
    data: { dataset: "builtin:shop", split: "test", instancesPerStep: 2 },
    rollout: { paradigm: "environment", maxAssistantTurns: 2, maxUserTurns: 2, maxMicroSteps: 6 },
    sampling: { evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 64 }, evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 64 } },
  });
  const logsOf = async (runId: string) => (await (await callerFor(member.headers)).runs.logs({ runId, limit: 2000 })).map((l) => l.message);

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    skyrl = await new SkyRLDouble({ baseModel: MODEL }).start();
    // The adapter the training run left on SkyRL: a LoRA model of rank 8 and its persistent sampler weights.
    const client = new TinkerClient({ baseUrl: skyrl.url, nodeName: "skyrl", profile: "skyrl-jax", log: () => {} });
    await client.start(["test"]);
    const model = await client.createModel(MODEL, { loraRank: 8 });
    samplerPath = (await model.saveWeightsForSampler("qwen-train-step-2")).path;
    client.close();

    adapterDir = mkdtempSync(path.join(os.tmpdir(), "envace-adapters-"));
    const respond = () => "I have looked into it and cannot do more for you.";
    // vLLM reads the folder at its own mount point, /mnt/envace-adapters.
    vllm = await startVllmDouble({ model: MODEL, respond, lora: { runtimeUpdating: true, maxLoraRank: 32, mount: { server: "/mnt/envace-adapters", local: adapterDir } } });
    staticVllm = await startVllmDouble({ model: MODEL, respond, lora: { runtimeUpdating: false, maxLoraRank: 32 } });
    smallVllm = await startVllmDouble({ model: MODEL, respond, lora: { runtimeUpdating: true, maxLoraRank: 4 } });

    await registerCheckedNode(prisma, "skyrl", [MODEL], { kind: "tinker", baseUrl: skyrl.url });
    for (const [name, double, settings] of [
      ["vllm", vllm, { lora: { adapterDir, serverAdapterDir: "/mnt/envace-adapters" } }],
      ["vllm-static", staticVllm, { lora: { adapterDir } }],
      ["vllm-small", smallVllm, { lora: { adapterDir: mkdtempSync(path.join(os.tmpdir(), "envace-adapters-")) } }],
    ] as const) {
      await registerCheckedNode(prisma, name, [MODEL], { kind: "openai", baseUrl: double.url });
      await prisma.node.update({ where: { name }, data: { settings: settings as Prisma.InputJsonValue } });
    }
    const train = await prisma.run.create({
      data: {
        name: "qwen-train",
        kind: "train",
        status: "succeeded",
        config: { kind: "train", policy: { node: "skyrl", model: MODEL, loraRank: 8 } } as Prisma.InputJsonValue,
        configVersion: 1,
        paradigm: "rehearse",
        policyNode: "skyrl",
        totalSteps: 2,
        createdById: member.id,
      },
      select: { id: true },
    });
    checkpointId = (await prisma.checkpoint.create({ data: { runId: train.id, step: 2, nodeName: "skyrl", statePath: "tinker://x/weights/s2", samplerPath }, select: { id: true } })).id;
    worker = startWorkerProcess(databaseUrl);
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await Promise.all([skyrl?.close(), vllm?.close(), staticVllm?.close(), smallVllm?.close()]);
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("exports the archive into the adapter folder, loads it at runtime and samples it by name", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "eval on vllm", config: evaluation("vllm") });
    const done = await finished(run.id);
    expect(done.error, worker.output()).toBeNull();

    const name = `envace-ckpt-${checkpointId}`;
    // SkyRL's archive contract: the 302 route, then its download route, for the sampler checkpoint by name.
    expect(skyrl.archiveRequests).toEqual([
      { modelId: samplerPath.split("/")[2], name: "qwen-train-step-2", what: "archive" },
      { modelId: samplerPath.split("/")[2], name: "qwen-train-step-2", what: "download" },
    ]);
    expect(existsSync(path.join(adapterDir, name, "adapter_config.json"))).toBe(true);
    expect(existsSync(path.join(adapterDir, name, "adapter_model.safetensors"))).toBe(true);
    // Loaded from where vLLM sees the folder; every rollout sampled the adapter, none the base model.
    expect(vllm.loadRequests).toEqual([{ body: { lora_name: name, lora_path: `/mnt/envace-adapters/${name}` }, status: 200 }]);
    expect(vllm.requests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(vllm.requests.map((r) => r.model))).toEqual(new Set([name]));
    const trajectories = await prisma.trajectory.count({ where: { runId: run.id, phase: "eval" } });
    expect(trajectories).toBe(2);
    const logs = await logsOf(run.id);
    expect(logs.some((m) => m.startsWith(`exported the checkpoint of run "qwen-train" at step 2 from node "skyrl" as a LoRA adapter (`))).toBe(true);
    expect(logs).toContain(`the checkpoint of run "qwen-train" at step 2 loaded on node "vllm" as LoRA adapter ${name} (from /mnt/envace-adapters/${name})`);

    // Evaluated again: the adapter is loaded already; nothing is downloaded or loaded twice.
    const again = await caller.runs.create({ name: "eval on vllm, again", config: evaluation("vllm") });
    expect((await finished(again.id)).error, worker.output()).toBeNull();
    expect(skyrl.archiveRequests).toHaveLength(2);
    expect(vllm.loadRequests).toHaveLength(1);
    expect(await logsOf(again.id)).toContain(`the checkpoint of run "qwen-train" at step 2 is loaded on node "vllm" as LoRA adapter ${name}`);
  });

  it("fails with what to change on a vLLM without runtime LoRA loading, or with a smaller max LoRA rank", async () => {
    const caller = await callerFor(member.headers);
    const noRuntime = await caller.runs.create({ name: "eval on static vllm", config: evaluation("vllm-static") });
    const a = await finished(noRuntime.id);
    expect(a.status).toBe("failed");
    expect(a.error).toContain('node "vllm-static" does not load LoRA adapters at runtime (POST /v1/load_lora_adapter is not there): start vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True');

    const small = await caller.runs.create({ name: "eval on small vllm", config: evaluation("vllm-small") });
    const b = await finished(small.id);
    expect(b.status).toBe("failed");
    expect(b.error).toContain(`could not load the adapter envace-ckpt-${checkpointId}`);
    expect(b.error).toContain("LoRA rank 8 is greater than max_lora_rank 4");
  });
});
