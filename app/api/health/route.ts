import { NextResponse } from "next/server";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/contracts/database-unavailable";
import { checkHealth } from "@/server/system/check-health";

// Opens the database on demand: never at build time. `npm start` calls this once the server listens,
// so embedded-database migrations run at start-up rather than on the first visitor's request.
export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  const headers: Record<string, string> = { "cache-control": "no-store" };
  // A database that cannot be reached may come back on its own: say when to look again, as every route does then.
  if (!health.database.ok) headers["retry-after"] = String(DATABASE_RETRY_AFTER_SECONDS);
  return NextResponse.json(health, { status: health.ok ? 200 : 503, headers });
}
