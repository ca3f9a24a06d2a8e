import { createRequestDefer } from "@/server/api/request-defer";
import { handleCronRefresh } from "@/server/triggers/handle-cron-refresh";

export const dynamic = "force-dynamic";
/** Vercel: the refresh budget (REFRESH_BUDGET_MS, 45 s by default) plus the slowest fetch must fit. */
export const maxDuration = 60;

/** The background enhancement after the pass runs in `after()`: the function lives until it settles. */
export const GET = (request: Request) => handleCronRefresh(request, { defer: createRequestDefer() });
export const POST = (request: Request) => handleCronRefresh(request, { defer: createRequestDefer() });
