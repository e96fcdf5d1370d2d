/**
 * The web process (`npm run web`, and what `npm start` supervises): Next.js behind a plain `node:http`
 * server, so that
 *  - the client address comes from the socket, and X-Forwarded-For only from a trusted proxy
 *    (ENVACE_TRUSTED_PROXIES); routes read the result from one header this server sets;
 *  - every request passes the body limits first (scripts/lib/web-front.ts, lib/body-limits.ts): 413 before
 *    a route reads a byte of a body over its limit, on every route, signed in or not;
 *  - SIGTERM / SIGINT stop it promptly even with live event streams open (they are ended first, then the
 *    idle connections; whatever is still open after a grace period is cut).
 * `--dev` serves with `next dev`.
 */
import http from "node:http";
import next from "next";
import { applyClientAddress, CLIENT_ADDRESS_HEADER, parseTrustedProxies } from "../lib/client-address";
import { repoRoot } from "./lib/database";
import { checkContinue, withBodyLimits } from "./lib/web-front";
import { exitWithSupervisor } from "../lib/supervised";

// Under `npm start`: a supervisor that died (kill -9) stops this process the way SIGTERM does.
exitWithSupervisor();

const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST || undefined; // all interfaces, like `next start`
const SHUTDOWN_GRACE_MS = 5_000;

let trusted: ReturnType<typeof parseTrustedProxies>;
try {
  trusted = parseTrustedProxies(process.env.ENVACE_TRUSTED_PROXIES);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

// Tells the app (same process) that CLIENT_ADDRESS_HEADER is ours; under a bare `next start` it would be
// whatever the caller sent, so the app ignores it there.
(globalThis as { __envaceClientAddressHeader?: string }).__envaceClientAddressHeader = CLIENT_ADDRESS_HEADER;

const app = next({ dev, dir: repoRoot, port, hostname: hostname ?? "localhost" });
const handle = app.getRequestHandler();
await app.prepare();

const serve = (req: http.IncomingMessage, res: http.ServerResponse) =>
  handle(req, res).catch((err) => {
    console.error(`request ${req.method} ${req.url?.split("?")[0]} failed: ${(err as Error).message}`);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("internal error");
  });
const limited = withBodyLimits(serve);
const asked = checkContinue(serve);
const server = http.createServer((req, res) => {
  applyClientAddress(req, trusted);
  void limited(req, res);
});
server.on("checkContinue", (req, res) => {
  applyClientAddress(req, trusted);
  asked(req, res);
});
server.keepAliveTimeout = 5_000;

server.on("error", (err: NodeJS.ErrnoException) => {
  console.error(err.code === "EADDRINUSE" ? `port ${port} is already in use` : `web server error: ${err.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => console.log(`listening on ${hostname ?? "*"}:${port}${dev ? " (next dev)" : ""}`));

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  // Live event streams end themselves on this signal (server/events.ts listens for it too).
  process.emit("envace:shutdown" as never);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearInterval(sweep);
  clearTimeout(cut);
  await app.close().catch(() => {});
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
