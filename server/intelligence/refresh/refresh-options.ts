import type { LanguageModel } from "ai";
import { z } from "zod";
import type { TCapabilityConfig } from "../../capabilities";
import type { TLogger } from "../../logger";
import type { TContextRetriever } from "../judge";
import type { TLeaseCaller, TLoadedTracker } from "../tracker-store";
import type { TFinalWriter } from "./final-write-batch";
import type { TOnStep } from "./run-steps";

export const ZRefreshTriggerSchema = z.enum(["manual", "cron", "worker", "scheduler", "agent", "api", "setup"]);
export type TRefreshTrigger = z.infer<typeof ZRefreshTriggerSchema>;

export type TRefreshOptions = {
  trigger: TRefreshTrigger;
  /** Same key again (e.g. a redelivered cron message) → the first run's result, nothing written. */
  idempotencyKey?: string;
  /** Seams; default to the configured models / environment. `null` = rules mode. */
  models?: { filler: LanguageModel | null; judge: LanguageModel | null };
  capabilityConfig?: TCapabilityConfig;
  retrieveContext?: TContextRetriever;
  /** How long a lease lasts without renewal; a live run renews it every third of this. */
  leaseMs?: number;
  /** Test seam: false simulates a process that stopped renewing its lease (hung or killed). */
  renewLease?: boolean;
  /** A tracker the claim already leased and loaded (the cron / worker path): no read of its own. */
  claimed?: TLoadedTracker;
  /**
   * A person's own refresh (refreshTrackerNow): their tracker only (another's is NOT_FOUND) and their rate limit's
   * count, both in the lease statement (leaseAndLoad, TLeaseCaller).
   */
  caller?: TLeaseCaller;
  now?: () => Date;
  maxModelRetries?: number;
  log?: TLogger;
  /** Test seam for crash-safety tests: runs between fill and append. */
  afterFill?: () => Promise<void>;
  /** Hears each step (lease → crawl → precheck → fill → diff → judge → append) as it starts and ends. */
  onStep?: TOnStep;
  /**
   * Where an unchanged run's final write goes instead of a statement of its own: the claim loop's batch
   * (final-write-batch.ts), which writes several runs in one statement, each fenced on its own lease.
   */
  finalWrites?: TFinalWriter;
  /** Runs in a row a field may read nothing before the tracker needs attention (default FIELD_MISSING_AFTER). */
  fieldMissingAfter?: number;
};

/**
 * Short, renewed leases: a live run extends its lease every third of it, so the lease of a process that
 * died (kill -9, lost machine) is free again within this time instead of minutes (docs/design.md §7).
 */
export const DEFAULT_LEASE_MS = 8_000;
