import { handleCronRefresh } from "@/server/triggers/handle-cron-refresh";

export const dynamic = "force-dynamic";
/** Vercel: the refresh budget (REFRESH_BUDGET_MS, 45 s by default) plus the slowest fetch must fit. */
export const maxDuration = 60;

export const GET = (request: Request) => handleCronRefresh(request);
export const POST = (request: Request) => handleCronRefresh(request);
