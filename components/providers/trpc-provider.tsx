"use client";

import { type QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchStreamLink, httpSubscriptionLink, loggerLink, splitLink } from "@trpc/client";
import { type ReactNode, useState } from "react";
import superjson from "superjson";
import { TRPC_MAX_BATCH_SIZE } from "@/contracts/limits";
import { makeQueryClient } from "@/contracts/query-client";
import type { AppRouter } from "@/server/api/root";
import { TRPCProvider } from "./trpc";

let browserQueryClient: QueryClient | undefined;

/** The server renders with a fresh client per request; the browser keeps one for the page's life. */
function getQueryClient(): QueryClient {
  if (typeof window === "undefined") return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

/**
 * `serverUrl` is only used while a client component renders on the server without prefetched data;
 * the browser always talks to the same origin.
 */
export function TRPCReactProvider({ children, serverUrl }: { children: ReactNode; serverUrl: string }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() => {
    const url = typeof window === "undefined" ? serverUrl : "/api/trpc";
    return createTRPCClient<AppRouter>({
      links: [
        loggerLink({ enabled: (op) => op.direction === "down" && op.result instanceof Error }),
        splitLink({
          // Subscriptions ride on server-sent events (works on serverless hosts, unlike WebSockets).
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({ url, transformer: superjson }),
          false: httpBatchStreamLink({ url, transformer: superjson, maxItems: TRPC_MAX_BATCH_SIZE }),
        }),
      ],
    });
  });

  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
