import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TRunFinalInput, writeRunFinals } from "@/server/intelligence/refresh/run-record";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { countedBy, countedWrite, leasedTracker, unchangedWrite, writtenBy } from "../helpers/final-writes";

/**
 * The claim loop's batched final writes on a real PostgreSQL (issue "Refresh at the floor"), through the named
 * statements the server sends: each run in the statement fenced on its own lease, and each run's NOTIFY (events for
 * other instances) sent only for a run that was written, and only when the statement committed.
 */
describe.skipIf(!hasPostgres)("several runs' final writes in one statement, on PostgreSQL", () => {
  let db: TPostgresTestDb;
  let listener: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    db = await createPostgresTestDb();
    listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on("notification", (n) => void heard.push(n.payload ?? ""));
    await listener.query("LISTEN bw_test_final_writes");
  });
  afterAll(async () => {
    await listener?.end();
    await db?.drop();
  });

  it("writes the runs whose leases hold, and only their NOTIFYs; one that lost its lease writes and sends nothing", async () => {
    // Twice, the same shape: the second runs the statement already named and prepared on its connection.
    for (const round of [1, 2]) {
      heard.length = 0;
      const trackers = [await leasedTracker(db.db), await leasedTracker(db.db), await leasedTracker(db.db)];
      const inputs = trackers.map((l, i) =>
        unchangedWrite(l, {
          token: i === 1 ? `someone-else:${round}` : l.leaseToken,
          notify: [{ channel: "bw_test_final_writes", payload: l.trackerId }],
        }),
      );
      expect(await writeRunFinals(db.db, inputs)).toEqual([true, false, true]);
      const [first, lost, third] = await Promise.all(
        trackers.map((l, i) => writtenBy(db.db, l, inputs[i] as TRunFinalInput)),
      );
      for (const ok of [first, third]) expect(ok).toEqual({ run: true, ledger: 1, hash: "new", leaseToken: null });
      expect(lost).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: trackers[1]?.leaseToken });
      await expect.poll(() => heard.length).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 100)); // a third would have arrived with the other two
      expect([...heard].sort()).toEqual([trackers[0]?.trackerId, trackers[2]?.trackerId].sort());
    }
  });

  it("counted checks (one set of parts for all): only those whose leases hold are written and announced", async () => {
    for (const round of [1, 2]) {
      heard.length = 0;
      const trackers = [await leasedTracker(db.db), await leasedTracker(db.db), await leasedTracker(db.db)];
      const notify = (payload: string) => ({ channel: "bw_test_final_writes", payload });
      const own = unchangedWrite(trackers[2] as (typeof trackers)[number], { notify: [notify("own")] });
      const inputs = [
        countedWrite(trackers[0] as (typeof trackers)[number], { notify: notify("held") }),
        countedWrite(trackers[1] as (typeof trackers)[number], { token: `lost:${round}`, notify: notify("lost") }),
        own,
      ];
      expect(await writeRunFinals(db.db, inputs)).toEqual([true, false, true]);
      expect(await countedBy(db.db, trackers[0] as (typeof trackers)[number])).toMatchObject({
        leaseToken: null,
        hash: "new",
        days: [{ unchanged: 1, capabilityCalls: 1, requests: 1, bytes: 100 }],
        runs: 0,
      });
      expect(await countedBy(db.db, trackers[1] as (typeof trackers)[number])).toMatchObject({
        leaseToken: trackers[1]?.leaseToken,
        hash: "old",
        days: [],
      });
      expect((await writtenBy(db.db, trackers[2] as (typeof trackers)[number], own)).run).toBe(true);
      await expect.poll(() => heard.length).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 100)); // a third would have arrived with the other two
      expect([...heard].sort()).toEqual(["held", "own"]);
    }
  });
});
