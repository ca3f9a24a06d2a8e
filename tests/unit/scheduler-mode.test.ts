import { describe, expect, it } from "vitest";
import { parseEnv, schedulerMode, schedulerPollMs } from "@/server/env";
import { isOverdue } from "@/server/intelligence/tracker-store";

describe("the server's scheduler setting (docs/scheduling.md)", () => {
  it("is on by default, off on a serverless host, and SCHEDULER forces either way", () => {
    expect(schedulerMode(parseEnv({}))).toEqual({ enabled: true, reason: "on by default (SCHEDULER=auto)" });
    const vercel = parseEnv({ VERCEL: "1", DATABASE_URL: "postgresql://db/app" });
    expect(schedulerMode(vercel)).toMatchObject({
      enabled: false,
      reason: expect.stringMatching(/serverless host \(VERCEL/),
    });
    expect(schedulerMode(parseEnv({ SCHEDULER: "off" }))).toEqual({
      enabled: false,
      reason: "turned off (SCHEDULER=off)",
    });
    expect(schedulerMode({ ...vercel, SCHEDULER: "on" })).toMatchObject({ enabled: true });
    expect(() => parseEnv({ SCHEDULER: "sometimes" })).toThrow(/SCHEDULER/);
  });

  it("polls every 15 s unless SCHEDULER_POLL_MS (or its older name WORKER_POLL_MS) says otherwise", () => {
    expect(schedulerPollMs(parseEnv({}))).toBe(15_000);
    expect(schedulerPollMs(parseEnv({ WORKER_POLL_MS: "5000" }))).toBe(5_000);
    expect(schedulerPollMs(parseEnv({ SCHEDULER_POLL_MS: "2000", WORKER_POLL_MS: "5000" }))).toBe(2_000);
    expect(() => parseEnv({ SCHEDULER_POLL_MS: "10" })).toThrow(/SCHEDULER_POLL_MS/);
  });
});

describe("overdue", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
  it("is an active tracker more than two of its intervals past its next run", () => {
    const hourly = { status: "active" as const, scheduleMinutes: 60 };
    expect(isOverdue({ ...hourly, nextRunAt: minutesAgo(5) }, now)).toBe(false);
    expect(isOverdue({ ...hourly, nextRunAt: minutesAgo(120) }, now)).toBe(false);
    expect(isOverdue({ ...hourly, nextRunAt: minutesAgo(121) }, now)).toBe(true);
    expect(isOverdue({ status: "active", scheduleMinutes: 15, nextRunAt: minutesAgo(31) }, now)).toBe(true);
    expect(isOverdue({ ...hourly, status: "paused", nextRunAt: minutesAgo(500) }, now)).toBe(false);
    expect(isOverdue({ ...hourly, nextRunAt: null }, now)).toBe(false);
  });
});
