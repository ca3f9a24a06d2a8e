import { handlePublicApi, publicApi } from "@/server/api-tokens";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  const { id } = await context.params;
  return handlePublicApi(request, publicApi.state(id));
}
