import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnvForTests } from "@/server/env";
import { EVENTS_CHANNEL } from "@/server/events";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { openBenchDb, type TBenchDb } from "../bench/bench-db";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { hasPostgres, testDatabaseUrl, urlForDatabase } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * On PostgreSQL (DATABASE_URL set) a tracker page served by ANOTHER instance hears every run end: the
 * `tracker.checked` NOTIFY rides inside the run's final statement, so an unchanged refresh still sends one read
 * and one write (no third statement for the event), a failed run its one write, and the NOTIFY is only sent
 * when that statement wrote the run. "Another instance" is a plain pg client LISTENing on the channel.
 */
const page = (price: string) => `<main><p>Price <span id="price">${price}</span></p></main>`;
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

type TPayload = {
  id: string;
  topic: string;
  data: { trackerId: string; runId?: string; outcome?: string; materiality?: string };
};

describe.skipIf(!hasPostgres)("tracker.checked across instances on PostgreSQL", () => {
  let bench: TBenchDb;
  let site: TFixtureSite;
  let other: pg.Client;
  const heard: TPayload[] = [];

  beforeAll(async () => {
    bench = await openBenchDb("postgres");
    const rows = await bench.db.$queryRaw<{ name: string }[]>`SELECT current_database() AS name`;
    const url = urlForDatabase(testDatabaseUrl as string, rows[0]?.name ?? "");
    vi.stubEnv("DATABASE_URL", url);
    vi.stubEnv("AI_PROVIDER", "rules");
    resetEnvForTests();
    site = await startFixtureSite();
    other = new pg.Client({ connectionString: url });
    await other.connect();
    other.on("notification", (m) => {
      if (m.channel === EVENTS_CHANNEL && m.payload) heard.push(JSON.parse(m.payload) as TPayload);
    });
    await other.query(`LISTEN ${EVENTS_CHANNEL}`);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    resetEnvForTests();
    await other?.end();
    await site?.close();
    await bench?.close();
  });

  const options = (): TRefreshOptions => ({
    trigger: "manual",
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  });
  const heardFor = (trackerId: string) => heard.filter((p) => p.data.trackerId === trackerId);

  it("an unchanged refresh: 2 statements, and the other instance hears it; failed and material runs too", async () => {
    site.setPage("/pg-ev", { body: page("100") });
    const { tracker } = await createActiveTracker(bench.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/pg-ev") },
      definition,
    });
    expect((await refreshTracker(bench.db, tracker.id, options())).outcome).toBe("baseline");
    await expect.poll(() => heardFor(tracker.id).map((p) => p.data.outcome)).toEqual(["baseline"]);

    const unchanged = await bench.sql.measure(() => refreshTracker(bench.db, tracker.id, options()));
    expect(unchanged.value.outcome).toBe("unchanged");
    expect(unchanged.statements).toBe(2);
    expect(unchanged.control).toBe(0);
    await expect.poll(() => heardFor(tracker.id).map((p) => p.data.outcome)).toEqual(["baseline", "unchanged"]);

    site.setPage("/pg-ev", { status: 500, body: "Internal Server Error" });
    const failed = await bench.sql.measure(() => refreshTracker(bench.db, tracker.id, options()));
    expect(failed.value.status).toBe("failed");
    expect(failed.statements).toBe(2); // the lease read and the failure's one write
    await expect
      .poll(() => heardFor(tracker.id).map((p) => p.data.outcome))
      .toEqual(["baseline", "unchanged", "failed"]);

    // The other instance hears which run ended, too: the run id its Refresh now answer names.
    expect(heardFor(tracker.id).at(-1)?.data.runId).toBe(failed.value.runId);

    site.setPage("/pg-ev", { body: page("50") });
    expect((await refreshTracker(bench.db, tracker.id, options())).outcome).toBe("material");
    await expect
      .poll(() => heardFor(tracker.id).map((p) => `${p.topic}:${p.data.outcome ?? p.data.materiality}`))
      .toEqual([
        "tracker.checked:baseline",
        "tracker.checked:unchanged",
        "tracker.checked:failed",
        "tracker.checked:material",
        "tracker.changed:material",
      ]);
    const ids = heardFor(tracker.id).map((p) => Number(p.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});
