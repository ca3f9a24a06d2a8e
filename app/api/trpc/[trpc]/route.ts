import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPC_MAX_BATCH_SIZE } from "@/contracts/limits";
import { trpcResponseMeta } from "@/server/api/error-formatter";
import { limitRequestBody } from "@/server/api/request-limits";
import { appRouter } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";

// The database is opened on first request, never at build time.
export const dynamic = "force-dynamic";

async function handler(incoming: Request) {
  const req = await limitRequestBody(incoming);
  if (req instanceof Response) return req;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    // A batch is that many procedure calls: capped here and in the client's batch link.
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    createContext: () => createTRPCContext({ headers: req.headers }),
    // Logging of internal errors happens in the error formatter, with the request id.
    // Retry-After on a 503 (database unreachable) or 429, as on every other route.
    responseMeta: trpcResponseMeta,
  });
}

export { handler as GET, handler as POST };
