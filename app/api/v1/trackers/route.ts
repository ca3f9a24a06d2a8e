import { handlePublicApi, publicApi } from "@/server/api-tokens";

export const dynamic = "force-dynamic";

export const GET = (request: Request) => handlePublicApi(request, publicApi.listTrackers);
export const POST = (request: Request) => handlePublicApi(request, publicApi.createTracker);
