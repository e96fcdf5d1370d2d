/**
 * The setup integration tests of training runs share: a clean database, a signed-up member, the embedded
 * node started and registered as "embedded", and worker processes started on demand — all stopped after
 * the suite (SIGKILL: the tests are about what survives a crash). Call it inside a `describe`.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { prisma, resetDatabase, signUp, type TestUser } from "./helpers";
import { startEmbeddedNode, startWorkerProcess, type Child } from "./processes";

export interface WorkerHarness {
  /** The signed-up member (set once the suite's beforeAll ran). */
  readonly member: TestUser;
  readonly node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  /** The worker processes started so far, in order (a test may stop and remove them). */
  readonly workers: Child[];
  /** A new worker process on the test database, stopped with the suite. */
  startWorker(): Child;
  /** Starts the embedded node again on its port and data directory (after a test killed it). */
  startNodeAgain(): Promise<void>;
}

export function embeddedWorkerHarness(workerEnv: Record<string, string> = {}): WorkerHarness {
  const databaseUrl = inject("databaseUrl");
  let member: TestUser | undefined;
  let node: WorkerHarness["node"] | undefined;
  const workers: Child[] = [];

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startEmbeddedNode();
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the worker harness's ${what} is set in beforeAll: use it inside a test`);
    return value;
  };
  return {
    get member() {
      return ready(member, "member");
    },
    get node() {
      return ready(node, "node");
    },
    workers,
    async startNodeAgain() {
      const { port, dataDir } = ready(node, "node");
      node = await startEmbeddedNode({ port, dataDir });
    },
    startWorker() {
      const w = startWorkerProcess(databaseUrl, workerEnv);
      workers.push(w);
      return w;
    },
  };
}
