import { handleRestRequest } from "@/server/api/rest/handle-rest-request";

export const dynamic = "force-dynamic";

/** The public API: every /api/v1 route is in server/api/rest/routes.ts (documented at /api/v1/openapi.json). */
export const GET = (request: Request) => handleRestRequest(request);
export const POST = (request: Request) => handleRestRequest(request);
export const PUT = (request: Request) => handleRestRequest(request);
export const PATCH = (request: Request) => handleRestRequest(request);
export const DELETE = (request: Request) => handleRestRequest(request);
