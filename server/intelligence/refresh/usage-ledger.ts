import type { TUsageLedger } from "../../capabilities";
import type { TDb } from "../../db";

/**
 * The usage ledger backed by CapabilityCall, unique on (runId, callKey): recording the same call of
 * the same run twice (a redelivered or taken-over run) inserts nothing the second time.
 */
export function createDbLedger(db: TDb, runId: string): TUsageLedger {
  return {
    async record(callKey, info) {
      await db.capabilityCall.createMany({
        data: [
          {
            runId,
            callKey,
            capability: info.capability,
            status: info.status,
            errorCode: info.errorCode ?? null,
            httpStatus: info.httpStatus ?? null,
            requests: info.requests,
            bytes: info.bytes,
            durationMs: info.durationMs,
          },
        ],
        skipDuplicates: true,
      });
    },
  };
}
