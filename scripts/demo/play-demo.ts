import type { TDemoApi } from "./demo-api";
import { PRELUDE_STEPS } from "./demo-app-env";
import type { TDemoSite } from "./demo-site";
import { demoTrackers } from "./demo-trackers";

type TSay = (line: string) => void;

/** One tick's work through the public API: each demo tracker refreshed once, one after another. */
export async function refreshDemoTrackers(api: TDemoApi, ids: readonly string[], say: TSay): Promise<void> {
  for (const id of ids) {
    const { run } = (await api("POST", `/trackers/${id}/refresh`)) as { run: { summary: string } };
    say(`  ${id.slice(0, 8)}… ${run.summary}`);
  }
}

/**
 * The demo's trackers (docs/operations.md, "The demo"): those an earlier run left on this database, else the four of
 * demo-trackers.ts, created through the public API with the first PRELUDE_STEPS steps played at once, so every
 * tracker has a timeline within a minute. Returns their ids.
 */
export async function setUpDemoTrackers(
  api: TDemoApi,
  site: Pick<TDemoSite, "url" | "advance">,
  say: TSay,
): Promise<string[]> {
  const { trackers } = (await api("GET", "/trackers")) as { trackers: { id: string; target: string }[] };
  const existing = trackers.filter((t) => t.target.startsWith(site.url)).map((t) => t.id);
  if (existing.length > 0) {
    say(`found ${existing.length} demo trackers from an earlier run`);
    return existing;
  }
  const ids: string[] = [];
  for (const tracker of demoTrackers(site.url)) {
    const created = (await api("POST", "/trackers", tracker)) as { tracker: { id: string } };
    ids.push(created.tracker.id);
  }
  say(`created ${ids.length} trackers; recording their history…`);
  await refreshDemoTrackers(api, ids, say);
  for (let i = 0; i < PRELUDE_STEPS; i++) {
    say(`demo site → step ${site.advance()}`);
    await refreshDemoTrackers(api, ids, say);
  }
  return ids;
}
