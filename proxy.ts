/**
 * Every page's security headers (lib/security-headers.ts), per request: a fresh nonce goes into the
 * Content-Security-Policy of the request, where Next.js reads it and puts it on every script it writes
 * (which is why every page renders per request: app/layout.tsx), and into the response's policy. The API
 * and static files get their fixed headers from next.config.ts; they stay out of this proxy, which would
 * otherwise hold their request bodies (a dataset import's 41 MB) in memory to pass them on.
 */
import { NextResponse, type NextRequest } from "next/server";
import { IMAGES_FROM_OTHER_HOSTS_HEADER, newNonce, pageHeaders, servedOverHttps } from "./lib/security-headers";
import { appSettingsForRequest } from "./server/features/settings/service";

export async function proxy(request: NextRequest) {
  const nonce = newNonce();
  const settings = await appSettingsForRequest();
  const headers = pageHeaders({
    nonce,
    imagesFromOtherHosts: settings.reportImagesFromOtherHosts,
    https: servedOverHttps(request.nextUrl.href, request.headers.get("x-forwarded-proto")),
    dev: process.env.NODE_ENV === "development",
    pathname: request.nextUrl.pathname,
  });
  const forwarded = new Headers(request.headers);
  // Whatever the client sent as a policy is replaced: Next.js takes the nonce from this header.
  forwarded.set("content-security-policy", headers["Content-Security-Policy"]!);
  forwarded.set("x-nonce", nonce);
  // What the page shows and what its policy allows are decided once, here (app/layout.tsx reads it).
  forwarded.set(IMAGES_FROM_OTHER_HOSTS_HEADER, settings.reportImagesFromOtherHosts ? "1" : "0");
  const response = NextResponse.next({ request: { headers: forwarded } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static/|_next/image|favicon\\.ico$|icon\\.svg$).*)"],
};
