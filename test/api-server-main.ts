/**
 * test/api-server.ts as a process of its own, for tests that measure the web process itself (its memory
 * under oversized bodies): prints `listening <url>` once it serves. Env: DATABASE_URL, ENVACE_SECRET.
 */
import { startApiServer } from "./api-server";

const server = await startApiServer();
console.log(`listening ${server.url}`);
const stop = () => void server.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
