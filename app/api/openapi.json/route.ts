/** The OpenAPI 3.1 document of the REST API, public (it describes the API, it holds no data). */
import { openApiDocument } from "@/server/openapi";

export const dynamic = "force-dynamic";

export function GET(req: Request) {
  const origin = process.env.ENVACE_PUBLIC_URL || new URL(req.url).origin;
  return Response.json(openApiDocument(origin), { headers: { "cache-control": "no-cache" } });
}
