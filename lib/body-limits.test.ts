import { describe, expect, it } from "vitest";
import { bodyLimitFor, carriesCredentials, tooLargeBody } from "./body-limits";

const MB = 1024 * 1024;

describe("body limits per route", () => {
  it("gives every route the default, the dataset import its 41 MB, the account endpoints 64 KB", () => {
    expect(bodyLimitFor("POST", "/api/v1/runs")).toMatchObject({ limit: MB, what: "POST /api/v1/runs" });
    expect(bodyLimitFor("POST", "/api/v1/datasets").limit).toBe(41 * MB);
    expect(bodyLimitFor("POST", "/api/v1/datasets/").limit).toBe(41 * MB);
    expect(bodyLimitFor("GET", "/api/v1/datasets").limit).toBe(MB);
    expect(bodyLimitFor("POST", "/api/trpc/datasets.import").limit).toBe(41 * MB);
    expect(bodyLimitFor("POST", "/api/trpc/runs.list,datasets.import?batch=1")).toMatchObject({ limit: 41 * MB, trpc: { paths: ["runs.list", "datasets.import"], batch: true } });
    expect(bodyLimitFor("POST", "/api/auth/sign-in/email").limit).toBe(64 * 1024);
    expect(bodyLimitFor("POST", "/runs/new")).toMatchObject({ limit: MB, what: "this request" });
    expect(bodyLimitFor("POST", "/api/trpc/%E0%A4%A").limit).toBe(MB);
  });

  it("keeps a larger limit for requests with credentials", () => {
    expect(bodyLimitFor("POST", "/api/v1/datasets", { signedIn: false })).toMatchObject({ limit: MB, what: "POST /api/v1/datasets without a login" });
    expect(bodyLimitFor("POST", "/api/v1/runs", { signedIn: false })).toMatchObject({ limit: MB, what: "POST /api/v1/runs" });
    expect(carriesCredentials({ authorization: "Bearer envace_x" })).toBe(true);
    expect(carriesCredentials({ cookie: "a=b; better-auth.session_token=abc" })).toBe(true);
    expect(carriesCredentials({ cookie: "__Secure-better-auth.session_token=abc" })).toBe(true);
    expect(carriesCredentials({ cookie: "theme=dark", authorization: "Basic x" })).toBe(false);
    expect(carriesCredentials({})).toBe(false);
  });

  it("answers in tRPC's shape on tRPC routes and in the REST shape elsewhere", () => {
    const batch = JSON.parse(tooLargeBody(bodyLimitFor("POST", "/api/trpc/runs.create,reports.create?batch=1"))) as { error: { json: { message: string; data: { path: string; httpStatus: number } } } }[];
    expect(batch.map((b) => b.error.json.data.path)).toEqual(["runs.create", "reports.create"]);
    expect(batch[0]!.error.json.message).toBe("the request body is larger than 1 MB, the limit for runs.create, reports.create");
    expect(JSON.parse(tooLargeBody(bodyLimitFor("PUT", "/api/v1/x")))).toEqual({ code: "PAYLOAD_TOO_LARGE", message: "the request body is larger than 1 MB, the limit for PUT /api/v1/x", fieldErrors: [] });
  });
});
