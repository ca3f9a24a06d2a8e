import type { TDb } from "../db";
import { AppError } from "../errors";
import { resolveSessionUser, type TSessionUser } from "./session-user";

/**
 * Who is calling a route handler that lives outside tRPC (streaming routes). The one place such routes
 * authenticate, with the same rule as tRPC's protectedProcedure: today the local user; when accounts
 * arrive, the session cookie — swapped here, not in each route. No caller → UNAUTHORIZED.
 */
export async function requireRouteUser(db: TDb, request: Request): Promise<TSessionUser> {
  const user: TSessionUser | null = await resolveSessionUser(db, request.headers);
  if (!user) throw new AppError("UNAUTHORIZED", "Sign in to continue.");
  return user;
}
