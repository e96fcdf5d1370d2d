/** The REST API (OpenAPI document at /api/openapi.json): tRPC procedures exposed through trpc-to-openapi. */
import { handleRestRequest } from "@/server/openapi";

export const dynamic = "force-dynamic";

export { handleRestRequest as GET, handleRestRequest as POST, handleRestRequest as PUT, handleRestRequest as PATCH, handleRestRequest as DELETE };
