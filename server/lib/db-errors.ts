/**
 * Recognising "the database is not there right now" (Prisma P1001 …, the driver adapter's
 * DatabaseNotReachable/ConnectionClosed …, node-postgres, Postgres' 08xxx/57P0x, the socket below):
 * the one definition lives in lib/db-errors.ts, shared with the worker. Here such errors become 503
 * "try again shortly", never a 500 with the driver's text.
 */
export { isDatabaseUnavailable } from "../../lib/db-errors";
