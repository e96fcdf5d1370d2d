/**
 * `npm run node:start` — the embedded node on HOST:PORT (default 127.0.0.1:8765).
 * Env: PORT, HOST, NODE_DATA_DIR (checkpoints, default .data/node), NODE_API_KEY (optional),
 * NODE_WEIGHTS_DIR (warm-start checkpoint, default worker/node/weights/tiny-gpt), NODE_TF_BACKEND (wasm),
 * ENVACE_NODE_TRAIN_THREADS (gradient worker threads per forward_backward, default min(2, cores); training never runs on the HTTP thread).
 * Test mode (stricter than a real server's timing): NODE_MIN_FUTURE_MS keeps every future pending at
 * least that long, NODE_LONG_POLL_MS sets how long retrieve_future holds a call, NODE_PENDING_REPLY=408
 * ends an unfinished long poll with HTTP 408 as SkyRL tx does (default try_again, as hosted Tinker).
 */
import path from "node:path";
import { z } from "zod";
import { DEFAULT_WEIGHTS_DIR, startNode } from "./server";
import { trainThreadsSchema } from "./train";
import { exitWithSupervisor } from "../../lib/supervised";

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8765),
  HOST: z.string().min(1).default("127.0.0.1"),
  NODE_DATA_DIR: z.string().min(1).default(path.resolve(".data/node")),
  NODE_WEIGHTS_DIR: z.string().min(1).default(DEFAULT_WEIGHTS_DIR),
  NODE_API_KEY: z.string().min(8, "NODE_API_KEY must be at least 8 characters").optional(),
  ENVACE_NODE_TRAIN_THREADS: trainThreadsSchema.optional(),
  NODE_MIN_FUTURE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  NODE_LONG_POLL_MS: z.coerce.number().int().min(1).max(600_000).optional(),
  NODE_PENDING_REPLY: z.enum(["try_again", "408"]).optional(),
});

async function main() {
  // Under `npm start`: a supervisor that died (kill -9) stops the node the way SIGTERM does.
  exitWithSupervisor({ log: (l) => console.error(`[node] ${l}`) });
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    console.error(`invalid environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    process.exit(2);
  }
  const env = parsed.data;
  const node = await startNode({
    port: env.PORT,
    host: env.HOST,
    dataDir: env.NODE_DATA_DIR,
    warmStartDir: env.NODE_WEIGHTS_DIR,
    apiKey: env.NODE_API_KEY,
    trainThreads: env.ENVACE_NODE_TRAIN_THREADS,
    minFutureMs: env.NODE_MIN_FUTURE_MS,
    longPollMs: env.NODE_LONG_POLL_MS,
    pendingReply: env.NODE_PENDING_REPLY,
  });
  const base = node.service.describeBase();
  console.log(
    `[node] listening on ${node.url} (tinker: ${node.url}/api/v1, openai: ${node.url}/v1) model ${base.name} from ${base.source}, auth ${env.NODE_API_KEY ? "on" : "off"}, train threads ${node.service.opts.trainThreads}`,
  );
  const stop = () => {
    console.log("[node] shutting down");
    void node.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

void main();
