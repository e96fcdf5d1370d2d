import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/server/auth";
import { describeUnstorable, findUnstorableText } from "@/lib/text-hygiene";
import { bodyLimitFor, tooLargeBody } from "@/lib/body-limits";
import { BodyTooLargeError, readBodyWithin, withBody } from "@/server/lib/body-limit";
import { forgetCallers } from "@/server/lib/caller-cache";
import { isDatabaseUnavailable } from "@/server/lib/db-errors";
import { signInThrottle } from "@/server/lib/sign-in-throttle";

export const dynamic = "force-dynamic";

function json(status: number, body: { message: string; code: string }, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** better-auth, with no database or driver text in what goes back. */
async function forward(req: Request, method: "GET" | "POST"): Promise<Response> {
  try {
    const res = await toNextJsHandler(getAuth())[method](req);
    if (res.status < 500) return res;
    console.error(`auth ${method} ${new URL(req.url).pathname}: ${res.status} ${await res.text().catch(() => "")}`);
    return json(500, { message: "internal error; see the server log", code: "INTERNAL_ERROR" });
  } catch (err) {
    if (isDatabaseUnavailable(err)) return json(503, { message: "the database is unavailable right now; try again in a moment", code: "SERVICE_UNAVAILABLE" });
    console.error(`auth ${method} ${new URL(req.url).pathname}:`, err);
    return json(500, { message: "internal error; see the server log", code: "INTERNAL_ERROR" });
  }
}

export async function GET(req: Request) {
  return forward(req, "GET");
}

export async function POST(req: Request) {
  try {
    return await post(req);
  } finally {
    // Sign-out, session revocation, password changes…: who a cookie belongs to is looked up afresh.
    forgetCallers();
  }
}

async function post(req: Request): Promise<Response> {
  let raw: Uint8Array<ArrayBuffer>;
  const route = bodyLimitFor(req.method, req.url);
  try {
    raw = await readBodyWithin(req, route.limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return new Response(tooLargeBody(route), { status: 413, headers: { "content-type": "application/json", connection: "close" } });
    throw err;
  }
  let body: unknown = null;
  if (raw.byteLength) {
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      body = null; // not JSON: better-auth answers for itself
    }
  }
  const unstorable = findUnstorableText(body);
  if (unstorable) return json(400, { message: describeUnstorable(unstorable), code: "INVALID_INPUT" });

  const request = withBody(req, raw);
  const isPasswordSignIn = new URL(req.url).pathname.endsWith("/sign-in/email");
  const email = isPasswordSignIn && body && typeof (body as { email?: unknown }).email === "string" ? (body as { email: string }).email : null;
  if (!email) return forward(request, "POST");

  const throttle = signInThrottle();
  const decision = throttle.check(email);
  if (!decision.allowed) {
    const minutes = Math.ceil(decision.retryAfterS / 60);
    return json(
      429,
      { message: `too many failed sign-ins for this account; try again in ${minutes} minute${minutes === 1 ? "" : "s"}`, code: "TOO_MANY_FAILED_SIGN_INS" },
      { "retry-after": String(decision.retryAfterS) },
    );
  }
  const res = await forward(request, "POST");
  if (res.status === 401) throttle.recordFailure(email);
  else if (res.ok) throttle.recordSuccess(email);
  return res;
}
