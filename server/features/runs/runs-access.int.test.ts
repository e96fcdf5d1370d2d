/** Runs: who may cancel and resume (owner or admin), and search that treats LIKE wildcards as text. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { quickstartPreset } from "../../../contracts/run-config";

async function rejection(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

describe("runs: owner-or-admin changes and literal search", () => {
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    alice = await signUp("member");
    bob = await signUp("member");
    await registerCheckedNode(prisma); // the embedded node the configs name
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("lets only the member who launched a run, or an admin, cancel or resume it", async () => {
    const alices = await callerFor(alice.headers);
    const bobs = await callerFor(bob.headers);
    const run = await alices.runs.create({ name: "alice's run", config: quickstartPreset });
    expect(run.createdById).toBe(alice.id);

    const cancel = await rejection(bobs.runs.cancel({ id: run.id }));
    expect(cancel.code).toBe("FORBIDDEN");
    expect(cancel.message).toBe("you cannot cancel this run: only the member who launched a run, or an admin, can cancel or resume it");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("queued");

    expect((await alices.runs.cancel({ id: run.id })).status).toBe("cancelled");
    const resume = await rejection(bobs.runs.resume({ id: run.id }));
    expect(resume.code).toBe("FORBIDDEN");
    expect(resume.message).toMatch(/^you cannot resume this run/);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("cancelled");

    // An admin may change anyone's run; the log says who did.
    expect((await (await callerFor(admin.headers)).runs.resume({ id: run.id })).status).toBe("queued");
    expect((await (await callerFor(admin.headers)).runs.cancel({ id: run.id })).status).toBe("cancelled");
    const logs = await alices.runs.logs({ runId: run.id });
    expect(logs.map((l) => l.message)).toContain(`resume requested by ${admin.email}`);
  });

  it("searches names for % _ and \\ as themselves, not as LIKE wildcards", async () => {
    const caller = await callerFor(alice.headers);
    for (const name of ["100% reward", "1000 reward", "a_b", "axb", "back\\slash", "backslash"]) await caller.runs.create({ name, config: quickstartPreset });
    const names = async (search: string) => (await caller.runs.list({ search })).items.map((r) => r.name).sort();
    expect(await names("%")).toEqual(["100% reward"]);
    expect(await names("0% r")).toEqual(["100% reward"]);
    expect(await names("_")).toEqual(["a_b"]);
    expect(await names("\\")).toEqual(["back\\slash"]);
    expect(await names("REWARD")).toEqual(["100% reward", "1000 reward"]);
  });
});
