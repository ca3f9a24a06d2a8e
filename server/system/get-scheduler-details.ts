import type { TDb } from "@/server/db";
import { getSchedulerReport, type TSchedulerReport } from "@/server/triggers";
import { getHostActivity, type THostActivity } from "./get-host-activity";

/**
 * The System page's "Scheduler" section: the report, with where each scheduler runs and the counts over everyone's
 * trackers and notifications shown to the owner only (null for members).
 */
export type TSchedulerDetails = Omit<TSchedulerReport, "trackers" | "deliveries"> & {
  trackers: TSchedulerReport["trackers"] | null;
  deliveries: TSchedulerReport["deliveries"] | null;
  /** This process's politeness per host: the busiest hosts and those backed off (host names for the owner only). */
  hosts: THostActivity;
};

/**
 * Who keeps watch and how far behind (docs/scheduling.md). Host names and process ids say where the servers run, and
 * the counts span every person's trackers: like the data's location, the owner's business. Other people see whether
 * and how the schedulers run.
 */
export async function getSchedulerDetails(
  db: TDb,
  input: { viewer: { role: "owner" | "member" }; now?: Date },
): Promise<TSchedulerDetails> {
  const report = await getSchedulerReport(db, input.now ? { now: input.now } : {});
  const hosts = getHostActivity(input);
  if (input.viewer.role === "owner") return { ...report, hosts };
  return {
    ...report,
    hosts,
    schedulers: report.schedulers.map((s) => ({ ...s, host: "", pid: 0 })),
    trackers: null,
    deliveries: null,
  };
}
