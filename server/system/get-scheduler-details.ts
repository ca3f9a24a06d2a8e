import type { TDb } from "@/server/db";
import { getSchedulerReport, type TSchedulerReport } from "@/server/triggers";

/** The System page's "Scheduler" section: the report, with where each scheduler runs shown to the owner only. */
export type TSchedulerDetails = TSchedulerReport;

/**
 * Who keeps watch and how far behind (docs/scheduling.md). Host names and process ids say where the servers run,
 * which, like the data's location, is the owner's business: other people see each scheduler's kind and passes.
 */
export async function getSchedulerDetails(
  db: TDb,
  input: { viewer: { role: "owner" | "member" }; now?: Date },
): Promise<TSchedulerDetails> {
  const report = await getSchedulerReport(db, input.now ? { now: input.now } : {});
  if (input.viewer.role === "owner") return report;
  return { ...report, schedulers: report.schedulers.map((s) => ({ ...s, host: "", pid: 0 })) };
}
