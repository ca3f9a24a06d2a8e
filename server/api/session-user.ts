import type { TDb } from "@/server/db";
import { ensureLocalUser } from "@/server/users/ensure-local-user";

export type TSessionUser = Awaited<ReturnType<typeof ensureLocalUser>>;

/**
 * Who is calling. Until accounts arrive, every request acts as the single local user.
 * The lookup is memoised per database client so a request costs no extra query.
 */
const localUsers = new WeakMap<TDb, Promise<TSessionUser>>();

export function resolveSessionUser(db: TDb, _headers: Headers): Promise<TSessionUser> {
  let pending = localUsers.get(db);
  if (!pending) {
    pending = ensureLocalUser(db);
    // A failed lookup must not be cached forever.
    pending.catch(() => localUsers.delete(db));
    localUsers.set(db, pending);
  }
  return pending;
}
