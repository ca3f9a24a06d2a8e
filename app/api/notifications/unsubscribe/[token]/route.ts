import { handleUnsubscribe } from "@/server/api/notification-routes";

export const dynamic = "force-dynamic";

type TContext = { params: Promise<{ token: string }> };

export async function GET(request: Request, context: TContext) {
  return handleUnsubscribe(request, (await context.params).token);
}
export async function POST(request: Request, context: TContext) {
  return handleUnsubscribe(request, (await context.params).token);
}
