import "server-only";
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCQueryOptions } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache, type ReactNode } from "react";
import { makeQueryClient } from "@/contracts/query-client";
import { getAccessState } from "../auth";
import { databaseUnavailableError } from "../errors";
import { resolvePersonTimeZone, TIME_ZONE_COOKIE, timeZoneFromCookieHeader } from "../settings/time-zone";
import { appRouter, createCaller } from "./root";
import type { TSessionUser } from "./session-user";
import { createTRPCContext } from "./trpc";

/**
 * Helpers for React Server Components. Everything is per request (React `cache`), and reading
 * `headers()` makes every page that uses them dynamic — the database is never touched at build time.
 */

const createContext = cache(async () => {
  const incoming = await headers();
  const forwarded = new Headers(incoming);
  forwarded.set("x-trpc-source", "rsc");
  try {
    return await createTRPCContext({ headers: forwarded });
  } catch (error) {
    // The session lookup is a page's first database read: during an outage the page fails with the digest the
    // error boundaries (app/error.tsx, app/global-error.tsx) turn into "the database cannot be reached".
    throw databaseUnavailableError(error) ?? error;
  }
});

export const getQueryClient = cache(makeQueryClient);

/** `trpc.system.status.queryOptions()` etc., executed in-process (no HTTP hop). */
export const trpc = createTRPCOptionsProxy({ ctx: createContext, router: appRouter, queryClient: getQueryClient });

/** Direct calls when a server component only needs the data and no client cache. */
export const getServerCaller = cache(async () => createCaller(await createContext()));

/** The signed-in user of this request, or null (one session lookup per request, shared with the tRPC calls). */
export const getPageUser = cache(async (): Promise<TSessionUser | null> => (await createContext()).user);

/**
 * For the layouts of signed-in pages: the user, or a redirect — to /setup-owner while no account exists (first
 * run), otherwise to /sign-in.
 */
export async function requirePageUser(): Promise<TSessionUser> {
  const user = await getPageUser();
  if (user) return user;
  const { ownerId } = await getAccessState(await getRequestDb());
  redirect(ownerId ? "/sign-in" : "/setup-owner");
}

/** The database client of this request, for the auth pages' domain reads (owner exists? invite valid?). */
export const getRequestDb = cache(async () => (await createContext()).db);

/** Starts a query on the server; pair with <HydrateClient> so client components find it in cache. */
// biome-ignore lint/suspicious/noExplicitAny: accepts any tRPC query options, as the tRPC docs' helper does
export function prefetch<T extends ReturnType<TRPCQueryOptions<any>>>(queryOptions: T): Promise<void> {
  return getQueryClient().prefetchQuery(queryOptions);
}

/**
 * The zone this request's page writes its times in (docs/feed.md, "Time zone"): Settings', else the browser's from its
 * cookie, else UTC. Signed-in pages read the settings through the query cache, so a page that shows them too (the
 * feed, Settings) reads them once.
 */
export const getPageTimeZone = cache(async () => {
  const [user, incoming] = await Promise.all([getPageUser(), headers()]);
  const cookie = timeZoneFromCookieHeader(incoming.get("cookie"));
  const settings = user ? await getQueryClient().fetchQuery(trpc.settings.feed.queryOptions()) : null;
  return { ...resolvePersonTimeZone(settings?.timezone, cookie), cookie: { name: TIME_ZONE_COOKIE, value: cookie } };
});

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
