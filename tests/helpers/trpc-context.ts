import type { TTrpcContext } from "@/server/api/trpc";
import type { TDb } from "@/server/db";
import { detachedDefer } from "@/server/defer";
import { createLogger } from "@/server/logger";

/** A tRPC context for tests that call routers directly: a given database and caller, silent logs, tracked defer. */
export function testTrpcContext(
  db: TDb,
  user: TTrpcContext["user"],
  overrides: Partial<TTrpcContext> = {},
): TTrpcContext {
  return {
    db,
    user,
    log: createLogger({}, () => {}),
    requestId: "test",
    headers: new Headers(),
    defer: detachedDefer,
    ...overrides,
  };
}
