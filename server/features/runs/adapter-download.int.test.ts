/**
 * "Download adapter" over HTTP against real Postgres and SkyRL tx's double: the web server fetches the
 * checkpoint's archive from the node as the SDK does (302 to its /download route) and streams it to the
 * caller as an attachment; every refusal answers in the REST error shape with its reason.
 */
import type { Prisma } from "@prisma/client";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TinkerClient } from "../../../lib/clients/tinker-client";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { SkyRLDouble } from "../../../test/doubles/skyrl-tinker";
import { startApiServer, type ApiServer } from "../../../test/api-server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

let server: ApiServer;
let skyrl: SkyRLDouble;
let member: TestUser;
let memberToken: string;
let viewerToken: string;
const ids: Record<string, string> = {};

async function checkpointOf(name: string, node: string, samplerPath: string, extra: Partial<Prisma.CheckpointCreateInput> = {}) {
  const run = await prisma.run.create({
    data: { name, kind: "train", status: "succeeded", config: { kind: "train", policy: { node, model: "Qwen/Qwen3-8B" } }, configVersion: 1, paradigm: "rehearse", policyNode: node, totalSteps: 2, createdById: member.id },
    select: { id: true },
  });
  return (await prisma.checkpoint.create({ data: { run: { connect: { id: run.id } }, step: 2, nodeName: node, statePath: "tinker://m/weights/s2", samplerPath, ...extra }, select: { id: true } })).id;
}

const get = (id: string, token: string | null) => fetch(`${server.url}/api/checkpoints/${id}/adapter`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

beforeAll(async () => {
  await resetDatabase();
  server = await startApiServer();
  member = await signUp("member");
  const viewer = await signUp("viewer");
  memberToken = (await (await callerFor(member.headers)).tokens.create({ name: "ci" })).token;
  viewerToken = (await (await callerFor(viewer.headers)).tokens.create({ name: "ci" })).token;
  skyrl = await new SkyRLDouble({ baseModel: "Qwen/Qwen3-8B" }).start();
  const client = new TinkerClient({ baseUrl: skyrl.url, nodeName: "skyrl", profile: "skyrl-jax", log: () => {} });
  await client.start(["test"]);
  const model = await client.createModel("Qwen/Qwen3-8B", { loraRank: 4 });
  const path = (await model.saveWeightsForSampler("final")).path;
  client.close();
  await registerCheckedNode(prisma, "skyrl", ["Qwen/Qwen3-8B"], { kind: "tinker", baseUrl: skyrl.url });
  await registerCheckedNode(prisma, "embedded", ["tiny-gpt"]);
  // A node a member added: the server does not contact URLs members typed.
  await prisma.node.create({ data: { name: "members-skyrl", kind: "tinker", baseUrl: skyrl.url, createdById: member.id } });
  ids.ok = await checkpointOf("qwen run", "skyrl", path);
  ids.embedded = await checkpointOf("tiny run", "embedded", "tinker://m/sampler_weights/s2");
  ids.deleted = await checkpointOf("pruned run", "skyrl", path, { deletedAt: new Date(), deletedReason: "deleted on the node" });
  ids.members = await checkpointOf("members run", "members-skyrl", path);
  ids.gone = await checkpointOf("gone run", "skyrl", "tinker://model_nope/final");
});
afterAll(async () => {
  await server?.close();
  await skyrl?.close();
});

describe("Download adapter", () => {
  it("streams the node's archive as an attachment, to members and viewers alike", async () => {
    for (const token of [memberToken, viewerToken]) {
      const res = await get(ids.ok!, token);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toBe('attachment; filename="qwen-run-step2-adapter.tar.gz"');
      const tar = gunzipSync(Buffer.from(await res.arrayBuffer())).toString("latin1");
      expect(tar).toContain("adapter_config.json");
      expect(tar).toContain("adapter_model.safetensors");
      expect(tar).toContain('"r": 4');
    }
  });

  it("refuses with the reason: no caller, unknown, embedded weights, deleted, a node the server may not contact, a node without it", async () => {
    const answer = async (id: string, token: string | null = memberToken) => {
      const res = await get(id, token);
      return [res.status, ((await res.json()) as { message: string }).message];
    };
    expect(await answer(ids.ok!, null)).toEqual([401, "sign in or send an API token"]);
    expect(await answer("00000000-0000-4000-8000-000000000000")).toEqual([404, "checkpoint 00000000-0000-4000-8000-000000000000 not found"]);
    expect(await answer(ids.embedded!)).toEqual([409, 'node "embedded" keeps full weights of its own model, not LoRA adapters: there is no adapter to download']);
    expect(await answer(ids.deleted!)).toEqual([410, 'the checkpoint of run "pruned run" at step 2 was deleted (deleted on the node)']);
    const [status, message] = await answer(ids.members!);
    expect(status).toBe(403);
    expect(message).toMatch(/^the server does not contact node "members-skyrl" for you: /);
    const [gone, why] = await answer(ids.gone!);
    expect(gone).toBe(502);
    expect(why).toContain("HTTP 404");
  });
});
