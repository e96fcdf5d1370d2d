import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { bearer, callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { sha256 } from "../../../lib/secrets";
import { seedRunRows, trials } from "../../../test/fixtures/run-rows";

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err, "expected the call to fail").toBeInstanceOf(TRPCError);
  return (err as TRPCError).code;
}

describe("reports and share links against real Postgres", () => {
  let admin: TestUser;
  let member: TestUser;
  let other: TestUser;
  let viewer: TestUser;
  let runA: string;
  let runB: string;
  let secretRun: string;

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    member = await signUp();
    other = await signUp();
    viewer = await signUp("viewer");
    runA = await seedRunRows(prisma, {
      name: "EnvACE A",
      createdById: member.id,
      metrics: { "reward/mean": [0.1, 0.3, 0.5], "val/avg@4": [0.2, 0.4, 0.6] },
      trajectories: [...trials("eval", 3, "t1", "tau2_retail", 4, 4), ...trials("eval", 3, "t2", "tau2_retail", 4, 1), ...trials("eval", 3, "s1", "shop", 4, 0)],
    });
    runB = await seedRunRows(prisma, {
      name: "Baseline B",
      createdById: member.id,
      metrics: { "reward/mean": [0.1, 0.2] },
      trajectories: [...trials("eval", 2, "t1", "tau2_retail", 4, 2), ...trials("eval", 2, "t2", "tau2_retail", 4, 0), ...trials("eval", 2, "s1", "shop", 4, 3)],
    });
    secretRun = await seedRunRows(prisma, { name: "SECRET-RUN-NAME", createdById: member.id, trajectories: trials("eval", 1, "x1", "secret_bench", 1, 1) });
  });

  it("builds the paper-layout table, charts and notes for a live report", async () => {
    const caller = await callerFor(member.headers);
    const { id } = await caller.reports.create({ title: "Retail eval", body: "**notes**", runIds: [runA, runB] });
    const { report, document } = await caller.reports.get({ id });
    expect(report.title).toBe("Retail eval");
    expect(document.frozenAt).toBeNull();
    expect(document.table.benchmarks).toEqual(["shop", "tau2_retail"]);
    expect(document.table.k).toBe(4);
    expect(document.table.rows.map((r) => [r.runName, r.cells.tau2_retail?.avgAtK, r.cells.tau2_retail?.passAtK, r.cells.shop?.avgAtK, r.overall])).toEqual([
      ["EnvACE A", 62.5, 100, 0, { avgAtK: 31.25, passAtK: 50 }],
      ["Baseline B", 25, 50, 75, { avgAtK: 50, passAtK: 75 }],
    ]);
    expect(document.charts.map((c) => [c.key, c.series.map((s) => s.runName)])).toEqual([
      ["reward/mean", ["EnvACE A", "Baseline B"]],
      ["val/avg@4", ["EnvACE A"]],
    ]);
    expect(document.charts[0]!.series[0]!.points).toEqual([
      { step: 1, value: 0.1 },
      { step: 2, value: 0.3 },
      { step: 3, value: 0.5 },
    ]);
  });

  it("freezes a snapshot that later results do not change, and unfreezes back to live", async () => {
    const caller = await callerFor(member.headers);
    const { id } = await caller.reports.create({ title: "Frozen", runIds: [runB] });
    await caller.reports.freeze({ id });
    const before = (await caller.reports.get({ id })).document;
    expect(before.frozenAt).not.toBeNull();
    // A newer evaluation of run B arrives after the freeze.
    await prisma.trajectory.createMany({
      data: ["t1", "t2"].map((instanceId) => ({
        runId: runB, step: 9, phase: "eval", instanceId, groupId: `late-${instanceId}`, rolloutIndex: 0, paradigm: "rehearse",
        reward: 1, outcome: "success", terminationReason: "finished", summary: { dataSource: "tau2_retail" },
      })),
    });
    const frozen = (await caller.reports.get({ id })).document;
    expect(frozen.table).toEqual(before.table);
    await caller.reports.update({ id, body: "edited after freeze" });
    expect((await caller.reports.get({ id })).document.notes).toBe("edited after freeze");
    await expect(caller.reports.update({ id, runIds: [runA] })).rejects.toThrow(/frozen/);
    await caller.reports.unfreeze({ id });
    const live = (await caller.reports.get({ id })).document;
    expect(live.frozenAt).toBeNull();
    expect(live.table.rows[0]!.cells.tau2_retail).toMatchObject({ avgAtK: 100, k: 1 });
    await prisma.trajectory.deleteMany({ where: { runId: runB, step: 9 } });
  });

  it("opens a shared report without an account, scrubbed, and nothing else", async () => {
    const owner = await callerFor(member.headers);
    const { id } = await owner.reports.create({ title: "Shared one", body: "hello", runIds: [runA] });
    await owner.reports.create({ title: "PRIVATE-OTHER-REPORT", runIds: [secretRun] });
    const link = await owner.reports.shareCreate({ reportId: id, expiresInDays: 3 });
    // ≥128 bits of randomness, stored only hashed.
    expect(link.token).toMatch(/^envr_[A-Za-z0-9_-]{43}$/);
    expect(link.path).toBe(`/share/${link.token}`);
    const row = await prisma.shareLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(row.tokenHash).toBe(sha256(link.token));
    expect(JSON.stringify(row)).not.toContain(link.token);
    expect(row.expiresAt!.getTime() - Date.now()).toBeGreaterThan(2.9 * 86_400_000);

    const anon = await callerFor();
    const shared = await anon.reports.shared({ token: link.token });
    expect(shared.document.title).toBe("Shared one");
    expect(shared.document.table.rows.map((r) => r.runName)).toEqual(["EnvACE A"]);
    const text = JSON.stringify(shared);
    for (const leaked of [runA, runB, secretRun, "SECRET-RUN-NAME", "PRIVATE-OTHER-REPORT", member.email, id]) expect(text).not.toContain(leaked);

    // The token is not a credential for anything else: not as a bearer token, not for other procedures.
    const withToken = await callerFor(bearer(link.token));
    expect(await codeOf(withToken.reports.get({ id }))).toBe("UNAUTHORIZED");
    expect(await codeOf(withToken.reports.list({}))).toBe("UNAUTHORIZED");
    expect(await codeOf(withToken.runs.get({ id: runA }))).toBe("UNAUTHORIZED");
    expect(await codeOf(withToken.compare.runs({ runIds: [runA] }))).toBe("UNAUTHORIZED");
    expect(await codeOf(withToken.metrics.series({ runId: runA, keys: ["reward/mean"] }))).toBe("UNAUTHORIZED");
    expect(await codeOf(withToken.reports.shareList({ reportId: id }))).toBe("UNAUTHORIZED");
    // Guessing: an unknown token of the right shape, or a changed one, reads nothing.
    expect(await codeOf(anon.reports.shared({ token: `${link.token.slice(0, -1)}${link.token.endsWith("A") ? "B" : "A"}` }))).toBe("NOT_FOUND");
    expect(await codeOf(anon.reports.shared({ token: "envr_short" }))).toBe("BAD_REQUEST");
  });

  it("stops working when revoked or expired, with one answer for both", async () => {
    const owner = await callerFor(member.headers);
    const anon = await callerFor();
    const { id } = await owner.reports.create({ title: "Short-lived", runIds: [runA] });
    const revoked = await owner.reports.shareCreate({ reportId: id, expiresInDays: 7 });
    const expired = await owner.reports.shareCreate({ reportId: id, expiresInDays: 7 });
    expect((await anon.reports.shared({ token: revoked.token })).document.title).toBe("Short-lived");
    expect((await anon.reports.shared({ token: expired.token })).document.title).toBe("Short-lived");

    await owner.reports.shareRevoke({ id: revoked.id });
    await prisma.shareLink.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const errors = await Promise.all([revoked.token, expired.token].map((token) => anon.reports.shared({ token }).then(() => null, (e) => e as TRPCError)));
    expect(errors.map((e) => [e?.code, e?.message])).toEqual([
      ["NOT_FOUND", "this share link is invalid, revoked or expired"],
      ["NOT_FOUND", "this share link is invalid, revoked or expired"],
    ]);
    const links = await owner.reports.shareList({ reportId: id });
    expect(links.map((l) => l.status).sort()).toEqual(["expired", "revoked"]);
    expect(JSON.stringify(links)).not.toMatch(/tokenHash|envr_/);

    // Deleting the report kills its links too.
    const live = await owner.reports.shareCreate({ reportId: id, expiresInDays: 1 });
    await owner.reports.remove({ id });
    expect(await codeOf(anon.reports.shared({ token: live.token }))).toBe("NOT_FOUND");
  });

  it("lets viewers read but not create, change or share; only the author or an admin changes a report", async () => {
    const mine = await callerFor(member.headers);
    const { id } = await mine.reports.create({ title: "Author only", runIds: [runA] });
    const v = await callerFor(viewer.headers);
    expect((await v.reports.get({ id })).report.title).toBe("Author only");
    expect(await codeOf(v.reports.create({ title: "nope", runIds: [runA] }))).toBe("FORBIDDEN");
    expect(await codeOf(v.reports.shareCreate({ reportId: id }))).toBe("FORBIDDEN");
    expect(await codeOf(v.reports.update({ id, body: "x" }))).toBe("FORBIDDEN");
    expect(await codeOf(v.reports.freeze({ id }))).toBe("FORBIDDEN");
    const o = await callerFor(other.headers);
    expect(await codeOf(o.reports.update({ id, title: "hijack" }))).toBe("FORBIDDEN");
    expect(await codeOf(o.reports.shareCreate({ reportId: id }))).toBe("FORBIDDEN");
    expect(await codeOf(o.reports.remove({ id }))).toBe("FORBIDDEN");
    const link = await mine.reports.shareCreate({ reportId: id });
    expect(await codeOf(o.reports.shareRevoke({ id: link.id }))).toBe("FORBIDDEN");
    await (await callerFor(admin.headers)).reports.update({ id, title: "Admin edit" });
    expect((await v.reports.get({ id })).report.title).toBe("Admin edit");
  });

  it("refuses every non-share procedure without a session, and validates input", async () => {
    const anon = await callerFor();
    const some = "00000000-0000-4000-8000-000000000000";
    const calls: Promise<unknown>[] = [
      anon.reports.list({}),
      anon.reports.get({ id: some }),
      anon.reports.create({ title: "x", runIds: [runA] }),
      anon.reports.update({ id: some, title: "x" }),
      anon.reports.freeze({ id: some }),
      anon.reports.unfreeze({ id: some }),
      anon.reports.remove({ id: some }),
      anon.reports.shareCreate({ reportId: some }),
      anon.reports.shareList({ reportId: some }),
      anon.reports.shareRevoke({ id: some }),
      anon.compare.runs({ runIds: [runA] }),
      anon.metrics.keys({ runId: runA }),
    ];
    for (const call of calls) expect(await codeOf(call)).toBe("UNAUTHORIZED");
    const m = await callerFor(member.headers);
    await expect(m.reports.create({ title: "  ", runIds: [runA] })).rejects.toThrow(/title is required/);
    await expect(m.reports.create({ title: "x", runIds: [some] })).rejects.toThrow(/run\(s\) not found/);
    await expect(m.reports.shareCreate({ reportId: some, expiresInDays: 0 })).rejects.toThrow(/at least 1 day/);
  });

  it("computes, freezes and shares the charts the notes embed by reference", async () => {
    // "loss/act" is never an automatic chart: only the embed asks for it.
    await prisma.metricPoint.createMany({ data: [1, 2].map((step) => ({ runId: runA, key: "loss/act", step, value: step / 4 })) });
    const caller = await callerFor(member.headers);
    const notes = "```envace-chart\nmetric: loss/act\ncaption: Act loss\n```\n\n```envace-table\n```";
    const { id } = await caller.reports.create({ title: "Paper", body: notes, runIds: [runA, runB] });
    const live = (await caller.reports.get({ id })).document;
    expect(live.charts.map((c) => c.key)).toEqual(["reward/mean", "val/avg@4", "loss/act"]);
    expect(live.charts[2]!.series).toEqual([{ runId: runA, runName: "EnvACE A", points: [{ step: 1, value: 0.25 }, { step: 2, value: 0.5 }] }]);

    await caller.reports.freeze({ id });
    await prisma.metricPoint.deleteMany({ where: { runId: runA, key: "loss/act" } });
    const frozen = (await caller.reports.get({ id })).document;
    expect(frozen.charts.find((c) => c.key === "loss/act")?.series[0]?.points).toHaveLength(2);

    const link = await caller.reports.shareCreate({ reportId: id, expiresInDays: 1 });
    const shared = (await (await callerFor()).reports.shared({ token: link.token })).document;
    expect(shared.charts.find((c) => c.key === "loss/act")?.series[0]).toMatchObject({ runId: "run-1", runName: "EnvACE A" });
    const md = (await caller.reports.export({ id, format: "md" })).content;
    expect(md).toContain("*Figure 1: Act loss*");
    expect(md).toContain("*Table 1: Success rates in percent*");
  });

  it("the Markdown export of a report with XSS payloads holds no raw tag and links only to http(s) and mailto (REST and tRPC)", async () => {
    const xssRun = await seedRunRows(prisma, { name: '<img src=x onerror="alert(1)">', createdById: member.id, metrics: { "reward/mean": [0.1, 0.2] }, trajectories: trials("eval", 2, "t1", "tau2_retail", 4, 2) });
    const notes = [
      "Safe **bold** and [a paper](https://arxiv.org/abs/1).",
      "",
      "<script>alert(1)</script>",
      "",
      'Inline <img src=x onerror="alert(2)"> <svg/onload=alert(3)> and [js](javascript:alert(4)) <javascript:alert(5)> ![p](javascript:alert(6))',
      "",
      "[r]: javascript:alert(7)",
      "",
      "$<img src=x onerror=alert(8)>$",
      "",
      "```envace-chart",
      "metric: reward/mean",
      'caption: <img src=x onerror="alert(9)"> [c](javascript:alert(10))',
      "```",
      "",
      "```envace-chart",
      "metric: <img src=x onerror=alert(11)>",
      "```",
      "",
      "```envace-table",
      "benchmarks: <script>alert(12)</script>",
      "```",
      "",
      "```envace-table",
      "<b onmouseover=alert(13)>",
      "```",
    ].join("\n");
    const caller = await callerFor(member.headers);
    const { id } = await caller.reports.create({ title: "<img src=x onerror=alert(0)> [t](javascript:alert(14))", body: notes, runIds: [xssRun] });
    const token = (await caller.tokens.create({ name: "export" })).token;
    const { handleRestRequest } = await import("../../openapi");
    const res = await handleRestRequest(new Request(`http://localhost/api/v1/reports/${id}/export?format=md`, { headers: bearer(token) }));
    expect(res.status).toBe(200);
    const viaRest = ((await res.json()) as { content: string }).content;
    const viaTrpc = (await caller.reports.export({ id, format: "md" })).content;
    // The same file (but for when its live results were computed).
    const body = (md: string) => md.replace(/^Live results computed at .*$/m, "");
    expect(body(viaRest)).toBe(body(viaTrpc));
    for (const md of [viaRest, viaTrpc]) {
      // No tag anywhere (the figure's SVG travels base64-encoded), and no link but to the web or a mail address.
      expect(md.match(/<[A-Za-z!/?][^\n]{0,40}/g) ?? [], md).toEqual([]);
      expect(md).not.toMatch(/(?<!\\)\]\((?!https?:|mailto:|data:image\/svg\+xml;base64,)/);
      expect(md).not.toContain("javascript:alert(7)");
      expect(md).toContain("# &lt;img src=x onerror=alert(0)&gt; [t\\](javascript:alert(14))");
      expect(md).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      expect(md).toContain("*Figure 1: &lt;img src=x onerror=\"alert(9)\"&gt; [c\\](javascript:alert(10))*");
      expect(md).toMatch(/> Figure 2: &lt;img src=x onerror=alert\(11\)&gt;: /);
      expect(md).toMatch(/> Table 1: Success rates in percent: .*&lt;script&gt;alert\(12\)&lt;\/script&gt;/);
      expect(md).toMatch(/> envace-table: cannot read "&lt;b onmouseover=alert\(13\)&gt;"/);
      expect(md).toContain("| &lt;img src=x onerror=\"alert(1)\"&gt; |");
      expect(md).toContain("$\\lt img src=x onerror=alert(8)\\gt $");
    }
  });
});
