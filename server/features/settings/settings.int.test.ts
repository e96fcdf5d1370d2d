/**
 * Installation settings through the real router against real Postgres, and the page proxy (proxy.ts) that
 * turns them into each page's Content-Security-Policy: admins change them, everyone (a share link's reader
 * too) reads them, and images from other hosts enter a page's policy only once an admin allows them.
 */
import { NextRequest } from "next/server";
import { beforeAll, describe, expect, it } from "vitest";
import { proxy } from "../../../proxy";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { readAppSettings } from "./service";

async function page(pathname: string, headers: Record<string, string> = {}) {
  const res = await proxy(new NextRequest(`http://localhost:3000${pathname}`, { headers }));
  return res.headers;
}
const imgSrc = (csp: string | null) => csp?.split("; ").find((d) => d.startsWith("img-src "));

describe("installation settings and page headers", () => {
  let admin: TestUser;
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp("admin");
    member = await signUp("member");
  });

  it("every page gets a strict policy with a fresh nonce, which Next.js receives on the request in place of the client's", async () => {
    const a = await page("/runs", { "content-security-policy": "script-src *" });
    const b = await page("/runs");
    const csp = a.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(b.get("content-security-policy")).not.toBe(csp);
    // The request Next.js renders carries the same policy (it reads the nonce from there), not the client's.
    expect(a.get("x-middleware-request-content-security-policy")).toBe(csp);
    expect(a.get("x-middleware-request-x-nonce")).toBe(/'nonce-([^']+)'/.exec(csp)![1]);
    expect(a.get("x-frame-options")).toBe("DENY");
    expect(a.get("x-content-type-options")).toBe("nosniff");
    expect(a.get("referrer-policy")).toBe("same-origin");
    expect(a.get("strict-transport-security")).toBeNull();
    const share = await page("/share/some-token");
    expect(share.get("referrer-policy")).toBe("no-referrer");
    expect(share.get("x-robots-tag")).toBe("noindex, nofollow");
  });

  it("sends HSTS and upgrades requests when the page came over HTTPS (a trusted proxy's X-Forwarded-Proto)", async () => {
    const h = await page("/settings", { "x-forwarded-proto": "https" });
    expect(h.get("strict-transport-security")).toBe("max-age=31536000");
    expect(h.get("content-security-policy")).toContain("upgrade-insecure-requests");
  });

  it("admins alone allow images from other hosts; the pages' policy and what they show follow", async () => {
    expect(await (await callerFor()).settings.get()).toEqual({ reportImagesFromOtherHosts: false });
    const before = await page("/reports/x");
    expect(imgSrc(before.get("content-security-policy"))).toBe("img-src 'self' data: blob:");
    expect(before.get("x-middleware-request-x-envace-images-other-hosts")).toBe("0");

    await expectTrpcError((await callerFor(member.headers)).settings.update({ reportImagesFromOtherHosts: true }), "FORBIDDEN");
    await expectTrpcError((await callerFor(admin.headers)).settings.update({ imagesEverywhere: true } as never), "BAD_REQUEST");
    expect(await (await callerFor(admin.headers)).settings.update({ reportImagesFromOtherHosts: true })).toEqual({ reportImagesFromOtherHosts: true });
    expect(await prisma.appSetting.findUniqueOrThrow({ where: { key: "reportImagesFromOtherHosts" } })).toMatchObject({ value: true, updatedById: admin.id });

    const after = await page("/reports/x", { "x-envace-images-other-hosts": "0" });
    expect(imgSrc(after.get("content-security-policy"))).toBe("img-src 'self' data: blob: https: http:");
    expect(after.get("x-middleware-request-x-envace-images-other-hosts")).toBe("1");
    expect(await (await callerFor(member.headers)).settings.get()).toEqual({ reportImagesFromOtherHosts: true });

    // A value stored badly reads as the default.
    await prisma.appSetting.update({ where: { key: "reportImagesFromOtherHosts" }, data: { value: "yes" } });
    expect(await readAppSettings({ fresh: true })).toEqual({ reportImagesFromOtherHosts: false });
  });
});
