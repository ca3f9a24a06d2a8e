/** The schedules people can pick (minutes); the UI, tRPC and REST all take one of these. */
export const SCHEDULE_OPTIONS = [
  { minutes: 15, label: "Every 15 minutes" },
  { minutes: 30, label: "Every 30 minutes" },
  { minutes: 60, label: "Hourly" },
  { minutes: 180, label: "Every 3 hours" },
  { minutes: 360, label: "Every 6 hours" },
  { minutes: 720, label: "Every 12 hours" },
  { minutes: 1440, label: "Daily" },
] as const;

export const SCHEDULE_MINUTES = SCHEDULE_OPTIONS.map((o) => o.minutes);
