import { NextResponse } from "next/server";
import { checkHealth } from "@/server/system/check-health";

// Opens the database on demand: never at build time. `npm start` calls this once the server listens,
// so embedded-database migrations run at start-up rather than on the first visitor's request.
export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  return NextResponse.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
