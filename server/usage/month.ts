/** The calendar month (UTC) that `now` falls in: budgets and "this month" reset on the 1st, 00:00 UTC. */
export function monthOf(now: Date): { from: Date; until: Date } {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const until = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { from, until };
}
