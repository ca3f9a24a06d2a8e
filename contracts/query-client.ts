import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

/**
 * One QueryClient recipe for the server (RSC prefetch) and the browser, so dehydrated data crosses
 * with the same transformer as tRPC itself. No server-only imports here: the browser bundles it.
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Data prefetched on the server is fresh on arrival; don't refetch it straight away.
      queries: { staleTime: 30_000 },
      dehydrate: {
        serializeData: superjson.serialize,
        // Also stream queries still in flight, so a page can prefetch without awaiting.
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
