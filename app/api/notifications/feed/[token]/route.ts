import { handleAtomFeed } from "@/server/api/notification-routes";

export const dynamic = "force-dynamic";

export async function GET(_request: Request, context: { params: Promise<{ token: string }> }) {
  return handleAtomFeed((await context.params).token);
}
