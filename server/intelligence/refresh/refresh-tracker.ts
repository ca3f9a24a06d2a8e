import { randomUUID } from "node:crypto";
import type { LanguageModel } from "ai";
import { z } from "zod";
import { getModel } from "../../ai";
import {
  capabilityConfigFromEnv,
  documentFormatOfHash,
  executeCapability,
  hashStructuredDocument,
  type TCapabilityConfig,
} from "../../capabilities";
import type { TDb } from "../../db";
import { AppError, isAppError } from "../../errors";
import { publish } from "../../events";
import type { Prisma, RefreshRun } from "../../generated/prisma/client";
import { trackWork } from "../../lifecycle/in-flight-work";
import { logger as rootLogger, type TLogger } from "../../logger";
import {
  appendChange,
  ensureEntity,
  findOrCarryEntity,
  getCurrentState,
  stampChecked,
  writeCurrentState,
} from "../../timeline";
import { assertModelBudget } from "../../usage";
import { effectiveFields, NOTABLE_SIGNALS, type TRecord, type TTrackerDefinition } from "../definition";
import { diffRecords, type TDeltas } from "../diff";
import { addUsage, cssQueriesOf, fillRecord, type TModelUsage, ZERO_USAGE } from "../fill";
import {
  contextQueryFor,
  describeFieldsForJudge,
  judgeDeltas,
  retrieveNoContext,
  type TContextRetriever,
  type TJudgeVerdict,
} from "../judge";
import { evaluateDeltas, pickUndecided, summariseVerdicts } from "../materiality";
import { acquireLease, getLockedDefinition, recordRefreshFailure, recordRefreshSuccess } from "../tracker-store";
import { describeDeltas } from "./describe-outcome";
import { markInterruptedRuns } from "./lease";
import { readCapture } from "./read-capture";
import { createStepRecorder, type TOnStep, type TRunStep } from "./run-steps";
import { createDbLedger } from "./usage-ledger";

export const ZRefreshTriggerSchema = z.enum(["manual", "cron", "worker", "agent", "api", "setup"]);
export type TRefreshTrigger = z.infer<typeof ZRefreshTriggerSchema>;

export type TRefreshOutcome = "unchanged" | "noise" | "notable" | "material" | "baseline" | "in_flight" | "interrupted";

export type TRefreshResult = {
  runId: string;
  status: "completed" | "failed" | "skipped" | "running";
  outcome: TRefreshOutcome | null;
  /** One line for people: "no change", "noise: rating 4.4→4.3", "material: …", "failed: …". */
  summary: string;
  modelCalls: number;
  error: { code: string; message: string; retryable: boolean } | null;
  /** True when an earlier run with the same idempotency key answered and nothing was done now. */
  replayed: boolean;
};

export type TRefreshOptions = {
  trigger: TRefreshTrigger;
  /** Same key again (e.g. a redelivered cron message) → the first run's result, nothing written. */
  idempotencyKey?: string;
  /** Seams; default to the configured models / environment. `null` = rules mode. */
  models?: { filler: LanguageModel | null; judge: LanguageModel | null };
  capabilityConfig?: TCapabilityConfig;
  retrieveContext?: TContextRetriever;
  leaseMs?: number;
  now?: () => Date;
  maxModelRetries?: number;
  log?: TLogger;
  /** Test seam for crash-safety tests: runs between fill and append. */
  afterFill?: () => Promise<void>;
  /** Hears each step (lease → crawl → precheck → fill → diff → judge → append) as it starts and ends. */
  onStep?: TOnStep;
};

const DEFAULT_LEASE_MS = 5 * 60_000;

/** Per field, how it was decided (stored on the change row and shown in the timeline). */
type TDecision = {
  verdict: "material" | "notable" | "noise";
  decidedBy: "code" | "agent";
  reason: string;
  rule?: string;
};

class RefreshFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * The hot loop, one function for every trigger: crawl → hash pre-check → fill → diff → judge → append.
 * Never throws for expected failures (bad page, model trouble, in-flight refresh): the result says what
 * happened, the run row records it, and state is only ever written by the final transaction.
 * Counted as in-flight work, so a graceful shutdown lets it finish even when no request waits for it.
 */
export function refreshTracker(db: TDb, trackerId: string, options: TRefreshOptions): Promise<TRefreshResult> {
  return trackWork("refresh", () => runRefresh(db, trackerId, options));
}

async function runRefresh(db: TDb, trackerId: string, options: TRefreshOptions): Promise<TRefreshResult> {
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const log = (options.log ?? rootLogger).child({ trackerId, trigger: options.trigger });

  const tracker = await db.tracker.findUnique({ where: { id: trackerId } });
  if (!tracker) throw new AppError("NOT_FOUND", "That tracker does not exist.");
  if (tracker.status === "archived") throw new AppError("PRECONDITION_FAILED", "This tracker is archived.");
  if (tracker.lockedVersion === null) {
    throw new AppError("PRECONDITION_FAILED", "Lock a definition for this tracker before refreshing it.");
  }

  // 1. The run record (or the earlier one with the same key).
  const claimed = await claimRun(db, trackerId, options);
  if ("result" in claimed) return claimed.result;
  const run = claimed.run;

  // 2. The lease: one refresh in flight per tracker.
  const steps = createStepRecorder(undefined, options.onStep);
  steps.start("lease");
  const leaseStarted = performance.now();
  // The lease token is per attempt, so a slow attempt that lost its lease to a takeover of the same
  // run cannot pass the final fencing check.
  const leaseToken = `${run.id}:${randomUUID()}`;
  const lease = await acquireLease(db, trackerId, leaseToken, now(), leaseMs);
  if (!lease.acquired) {
    if (run.idempotencyKey) {
      // Our key's run exists but someone else holds the lease: leave the run pending for redelivery.
      return { ...toResult(run, false), status: "skipped", outcome: "in_flight", summary: "skipped: in flight" };
    }
    const skipped = await db.refreshRun.update({
      where: { id: run.id },
      data: { status: "skipped", outcome: "in_flight", summary: "skipped: in flight", finishedAt: now() },
    });
    return toResult(skipped, false);
  }
  steps.record({ step: "lease", status: "ok", ms: Math.round(performance.now() - leaseStarted) });
  if (lease.tookOver) await markInterruptedRuns(db, trackerId, run.id, now());
  const started = await db.refreshRun.update({
    where: { id: run.id },
    data: { status: "running", startedAt: now(), attempt: { increment: 1 } },
  });

  const fence = { trackerId, leaseToken, leaseMs };
  // What the model steps cost, including the calls of a step that then failed.
  const cost = { modelCalls: 0, usage: ZERO_USAGE as TModelUsage };
  const metered = async <T extends { modelCalls: number; usage: TModelUsage }>(work: Promise<T>): Promise<T> => {
    const charge = (spent: { modelCalls?: number; usage?: TModelUsage }) => {
      cost.modelCalls += spent.modelCalls ?? 0;
      cost.usage = addUsage(cost.usage, spent.usage ?? ZERO_USAGE);
    };
    try {
      const result = await work;
      charge(result);
      return result;
    } catch (error) {
      charge(error as { modelCalls?: number; usage?: TModelUsage });
      throw error;
    }
  };
  let definitionVersion: number | null = null;
  // Everything a successful ending shares; each ending adds its outcome, summary and writes.
  const finish = (ending: Pick<TFinishInput, "outcome" | "summary" | "write">) =>
    finishRun(db, {
      ...ending,
      run: started,
      fence,
      scheduleMinutes: tracker.scheduleMinutes,
      now: now(),
      steps: steps.steps,
      progress: steps,
      modelCalls: cost.modelCalls,
      usage: cost.usage,
      definitionVersion,
    });
  try {
    const locked = await getLockedDefinition(db, trackerId);
    if (!locked) throw new RefreshFailure("NOT_LOCKED", "This tracker has no locked definition.", false);
    definitionVersion = locked.version;
    const def = locked.definition;
    const models = options.models ?? { filler: getModel("filler"), judge: getModel("judge") };
    // Before each model step (not before code-only ones): the owner's monthly token budget. Spent → this run fails
    // with BUDGET_EXCEEDED before any call, and the state stays as it was (DESIGN §9).
    const checkBudget = () => assertModelBudget(db, { userId: tracker.userId, now: now() });

    // 3. Crawl.
    const capture = await steps.time(
      "crawl",
      async () => {
        const envelope = await executeCapability(tracker.capability, tracker.capabilityInput, {
          config: options.capabilityConfig ?? capabilityConfigFromEnv(),
          ledger: createDbLedger(db, run.id),
          callKey: `crawl:${tracker.capability}`,
          // CSS extractors are answered from the crawl's own parse of the page (one parse, off the event loop).
          cssQueries: cssQueriesOf(def),
        });
        if (envelope.status !== "completed" || !envelope.results) {
          const error = envelope.error;
          throw new RefreshFailure(
            error?.code ?? "CAPABILITY_FAILED",
            error?.message ?? `${tracker.capability} returned no data.`,
            error?.retryable ?? true,
          );
        }
        return readCapture(tracker.capability, tracker.capabilityInput, envelope.results, def.identityRule);
      },
      (c) => c.entityKey,
    );

    // 4. Pre-check: same document under the same definition version → nothing to do, no model call.
    const contentHash = hashStructuredDocument(capture.document, `${trackerId}:v${locked.version}`);
    // New document formats may derive entity keys differently (sessions stripped): an entity stored under
    // an older format keeps its timeline under the new key (one-time; see find-or-carry-entity.ts).
    const format = documentFormatOfHash(contentHash);
    const entity =
      (await findOrCarryEntity(db, {
        trackerId,
        entityKey: capture.entityKey,
        isOlderFormat: (stored) => documentFormatOfHash(stored) < format,
      })) ?? (await ensureEntity(db, { trackerId, entityKey: capture.entityKey }));
    const state = await getCurrentState(db, entity.id);
    if (state && state.contentHash === contentHash) {
      steps.record({ step: "precheck", status: "ok", ms: 0, detail: "unchanged" });
      return await finish({
        outcome: "unchanged",
        summary: "no change",
        write: async (tx) => {
          await stampChecked(tx, { entityId: entity.id, contentHash, checkedAt: now() });
        },
      });
    }
    // A hash made under an older document format (e.g. before offers were read) differs even when the
    // page did not change: this run re-fills and, if no tracked field moved, only stores the new hash.
    const reformatted = !!state && documentFormatOfHash(state.contentHash) < format;
    steps.record({
      step: "precheck",
      status: "ok",
      ms: 0,
      detail: reformatted ? "new document format" : state ? "changed" : "first run",
    });

    // 5. Fill.
    const filled = await metered(
      steps.time(
        "fill",
        () =>
          fillRecord({
            def,
            raw: capture.raw,
            model: models.filler,
            decision: tracker.decision,
            source: capture.source,
            beforeModelCall: checkBudget,
            ...(options.maxModelRetries !== undefined ? { maxRetries: options.maxModelRetries } : {}),
          }),
        (f) => `${f.modelCalls} model call(s)${f.warnings.length ? `; ${f.warnings.join("; ")}` : ""}`,
      ),
    );
    await options.afterFill?.();

    // 6. Diff (code) against the accepted record.
    const previous = (state?.fields as TRecord | undefined) ?? null;
    const deltas = await steps.time(
      "diff",
      async () => diffRecords(previous, filled.record, def),
      (d) => `${Object.keys(d).length} delta(s)`,
    );

    // One-time re-hash under a new document format (DESIGN §3 step 2): baseline-preserving. No tracked
    // field moved → store the new hash like an unchanged page (no change row, no judge call; the fill
    // needed no model call when extractors cover every field). Wording-only notable_signals are ignored.
    if (state && reformatted && Object.keys(deltas).every((field) => field === NOTABLE_SIGNALS)) {
      return await finish({
        outcome: "unchanged",
        summary: "no change (re-hashed under a new page format)",
        write: async (tx) => {
          await stampChecked(tx, { entityId: entity.id, contentHash, checkedAt: now() });
        },
      });
    }

    // First run: the baseline.
    if (!state) {
      return await finish({
        outcome: "baseline",
        summary: `baseline recorded (${Object.keys(deltas).length} field(s))`,
        write: async (tx) => {
          const capturedAt = now();
          await appendChange(tx, {
            entityId: entity.id,
            trackerId,
            runId: run.id,
            capturedAt,
            delta: deltas,
            materiality: "baseline",
            decisions: {},
            definitionVersion: locked.version,
          });
          await writeCurrentState(tx, {
            entityId: entity.id,
            fields: filled.record,
            contentHash,
            definitionVersion: locked.version,
            checkedAt: capturedAt,
          });
        },
      });
    }

    // 7. Judge: rules first (free, reproducible), then one model call for whatever they cannot decide.
    const decisions = await metered(
      steps.time(
        "judge",
        () => judgeAll(def, deltas, tracker.decision, trackerId, models.judge, options, checkBudget),
        (j) => `${j.modelCalls} model call(s)`,
      ),
    );
    const overall = summariseVerdicts(decisions.byField);

    // 8. Append.
    const kept = pickDeltas(deltas, decisions.byField, (v) => v !== "noise");
    const nextFields = acceptFields(def, previous, filled.record, deltas, decisions.byField);
    const outcome: TRefreshOutcome = overall === "none" ? "noise" : overall;
    const summary =
      overall === "material" || overall === "notable"
        ? `${overall}: ${describeDeltas(kept)}`
        : Object.keys(deltas).length
          ? `noise: ${describeDeltas(deltas)}`
          : "no tracked field changed";
    const finished = await finish({
      outcome,
      summary,
      write: async (tx) => {
        const capturedAt = now();
        if (overall === "material" || overall === "notable") {
          await appendChange(tx, {
            entityId: entity.id,
            trackerId,
            runId: run.id,
            capturedAt,
            delta: kept,
            materiality: overall,
            decisions: decisions.byField,
            definitionVersion: locked.version,
          });
        }
        await writeCurrentState(tx, {
          entityId: entity.id,
          fields: nextFields,
          contentHash,
          definitionVersion: locked.version,
          checkedAt: capturedAt,
        });
      },
    });
    // After the commit: open feed pages reload. Failure-tolerant — the change is recorded either way.
    if (overall === "material" || overall === "notable") {
      // Whoever shows trackers (the feed, open tracker pages) listens; the hot loop does not know them (DESIGN §2).
      await publish(db, "tracker.changed", { userId: tracker.userId, trackerId: tracker.id, materiality: overall });
    }
    return finished;
  } catch (error) {
    return await failRun(db, {
      run: started,
      fence,
      failures: tracker.consecutiveFailures,
      scheduleMinutes: tracker.scheduleMinutes,
      now: now(),
      steps: steps.steps,
      modelCalls: cost.modelCalls,
      usage: cost.usage,
      definitionVersion,
      error,
      log,
    });
  }
}

/** Creates the run, or answers from the earlier run with the same idempotency key. */
async function claimRun(
  db: TDb,
  trackerId: string,
  options: TRefreshOptions,
): Promise<{ run: RefreshRun } | { result: TRefreshResult }> {
  const key = options.idempotencyKey;
  if (key) {
    const existing = await db.refreshRun.findUnique({
      where: { trackerId_idempotencyKey: { trackerId, idempotencyKey: key } },
    });
    if (existing) return answerExisting(existing);
  }
  try {
    const run = await db.refreshRun.create({
      data: { id: randomUUID(), trackerId, trigger: options.trigger, idempotencyKey: key ?? null, status: "pending" },
    });
    return { run };
  } catch (error) {
    // Lost the race to create the run for this key: answer from the winner's row.
    if (key && (error as { code?: string }).code === "P2002") {
      const existing = await db.refreshRun.findUnique({
        where: { trackerId_idempotencyKey: { trackerId, idempotencyKey: key } },
      });
      if (existing) return answerExisting(existing);
    }
    throw error;
  }
}

/**
 * A finished run answers for itself. An unfinished one is either still in flight (its lease is live)
 * or was interrupted (lease expired or never taken) — then the redelivery resumes the same run, so its
 * usage-ledger entries (keyed by run and call) are not recorded twice.
 */
function answerExisting(existing: RefreshRun): { run: RefreshRun } | { result: TRefreshResult } {
  if (existing.status === "completed" || existing.status === "failed" || existing.status === "skipped") {
    return { result: toResult(existing, true) };
  }
  return { run: existing };
}

function toResult(run: RefreshRun, replayed: boolean): TRefreshResult {
  const error = run.error as TRefreshResult["error"];
  return {
    runId: run.id,
    status: run.status === "pending" ? "running" : run.status,
    outcome: (run.outcome as TRefreshOutcome | null) ?? null,
    summary: run.summary ?? run.status,
    modelCalls: run.modelCalls,
    error: error ?? null,
    replayed,
  };
}

async function judgeAll(
  def: TTrackerDefinition,
  deltas: TDeltas,
  decision: string,
  trackerId: string,
  model: LanguageModel | null,
  options: TRefreshOptions,
  beforeModelCall: () => Promise<void>,
): Promise<{ byField: Record<string, TDecision>; modelCalls: number; usage: TModelUsage }> {
  const byCode = evaluateDeltas(deltas, def);
  const byField: Record<string, TDecision> = {};
  for (const [field, v] of Object.entries(byCode)) {
    if (v.verdict !== "undecided") {
      byField[field] = { verdict: v.verdict, decidedBy: "code", reason: v.reason, rule: v.rule.kind };
    }
  }
  const undecided = pickUndecided(deltas, byCode);
  if (Object.keys(undecided).length === 0) return { byField, modelCalls: 0, usage: ZERO_USAGE };
  const retrieve = options.retrieveContext ?? retrieveNoContext;
  const context = await retrieve({ trackerId, query: contextQueryFor(decision, undecided), limit: 5 });
  const judged = await judgeDeltas({
    decision,
    deltas: undecided,
    fieldDescriptions: describeFieldsForJudge(def, Object.keys(undecided)),
    context,
    model,
    beforeModelCall,
    ...(options.maxModelRetries !== undefined ? { maxRetries: options.maxModelRetries } : {}),
  });
  // Only the fields the judge was asked about take its verdict: a code verdict is never replaced,
  // whatever the answer (or a page it read) says (DESIGN §3 step 5, §8).
  for (const field of Object.keys(undecided)) {
    if (!Object.hasOwn(judged.verdicts, field) || Object.hasOwn(byField, field)) continue;
    const v = judged.verdicts[field] as TJudgeVerdict;
    byField[field] = { verdict: v.verdict, decidedBy: v.decidedBy, reason: v.reason };
  }
  return { byField, modelCalls: judged.modelCalls, usage: judged.usage };
}

function pickDeltas(
  deltas: TDeltas,
  decisions: Record<string, TDecision>,
  keep: (verdict: TDecision["verdict"]) => boolean,
): TDeltas {
  const out: TDeltas = {};
  for (const [field, delta] of Object.entries(deltas)) {
    const d = decisions[field];
    if (!d || keep(d.verdict)) out[field] = delta;
  }
  return out;
}

/**
 * The record the next refresh diffs against. A value a numeric threshold called noise keeps its old
 * baseline, so slow drift still crosses the threshold; everything else takes the new value (a reword
 * the agent called noise is not re-judged on every later refresh).
 */
function acceptFields(
  def: TTrackerDefinition,
  previous: TRecord | null,
  next: TRecord,
  deltas: TDeltas,
  decisions: Record<string, TDecision>,
): TRecord {
  const out: TRecord = {};
  for (const field of effectiveFields(def)) {
    const d = decisions[field.name];
    const keepBaseline = deltas[field.name] && d?.verdict === "noise" && d.decidedBy === "code" && d.rule === "numeric";
    out[field.name] = keepBaseline && previous ? (previous[field.name] ?? null) : (next[field.name] ?? null);
  }
  return out;
}

type TFinishInput = {
  run: RefreshRun;
  fence: { trackerId: string; leaseToken: string; leaseMs: number };
  scheduleMinutes: number;
  now: Date;
  outcome: TRefreshOutcome;
  summary: string;
  steps: TRunStep[];
  modelCalls: number;
  usage: TModelUsage;
  definitionVersion: number | null;
  write: (tx: Prisma.TransactionClient) => Promise<void>;
  /** Live progress for the append step (which the transaction itself records). */
  progress?: Pick<ReturnType<typeof createStepRecorder>, "start" | "announce">;
};

/** The one write of a successful run: state, change row, run record and tracker bookkeeping together. */
async function finishRun(db: TDb, input: TFinishInput): Promise<TRefreshResult> {
  input.progress?.start("append");
  const appendStarted = performance.now();
  const appended: { step?: TRunStep } = {};
  const finished = await db.$transaction(async (tx) => {
    // Fencing first: the bookkeeping update only matches while we still hold the lease (and locks the
    // tracker row for the rest of the transaction). Lost it → roll back, nothing written. The same
    // statement writes the next run (schedule + jitter), once.
    const held = await recordRefreshSuccess(tx, {
      trackerId: input.fence.trackerId,
      leaseToken: input.fence.leaseToken,
      scheduleMinutes: input.scheduleMinutes,
      now: input.now,
    });
    if (!held) {
      throw new RefreshFailure("LEASE_LOST", "Another refresh took over this tracker; nothing was written.", true);
    }
    await input.write(tx);
    appended.step = { step: "append", status: "ok", ms: Math.round(performance.now() - appendStarted) };
    return tx.refreshRun.update({
      where: { id: input.run.id },
      data: {
        status: "completed",
        outcome: input.outcome,
        summary: input.summary,
        definitionVersion: input.definitionVersion,
        steps: [...input.steps, appended.step] as Prisma.InputJsonValue,
        modelCalls: input.modelCalls,
        inputTokens: input.usage.inputTokens,
        outputTokens: input.usage.outputTokens,
        finishedAt: input.now,
        error: undefined,
      },
    });
  });
  if (appended.step) input.progress?.announce(appended.step);
  return toResult(finished, false);
}

type TFailInput = Omit<TFinishInput, "outcome" | "summary" | "write" | "progress"> & {
  failures: number;
  error: unknown;
  log: TLogger;
};

/** State untouched; the run says what went wrong; the tracker backs off and counts the failure. */
async function failRun(db: TDb, input: TFailInput): Promise<TRefreshResult> {
  const { code, message, retryable } = describeFailure(input.error);
  if (code === "INTERNAL") input.log.error("refresh failed unexpectedly", { error: input.error });
  else input.log.warn("refresh failed", { code, message });
  const failed = await db.$transaction(async (tx) => {
    // Only the lease holder updates the tracker's failure bookkeeping (backoff + jitter) and releases the lease.
    await recordRefreshFailure(tx, {
      trackerId: input.fence.trackerId,
      leaseToken: input.fence.leaseToken,
      scheduleMinutes: input.scheduleMinutes,
      now: input.now,
      previousFailures: input.failures,
      message,
    });
    return tx.refreshRun.update({
      where: { id: input.run.id },
      data: {
        status: "failed",
        outcome: null,
        summary: `failed: ${message}`,
        definitionVersion: input.definitionVersion,
        steps: input.steps as Prisma.InputJsonValue,
        modelCalls: input.modelCalls,
        inputTokens: input.usage.inputTokens,
        outputTokens: input.usage.outputTokens,
        error: { code, message, retryable },
        finishedAt: input.now,
      },
    });
  });
  return toResult(failed, false);
}

function describeFailure(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof RefreshFailure) return { code: error.code, message: error.message, retryable: error.retryable };
  if (isAppError(error)) return { code: error.code, message: error.message, retryable: error.code !== "BAD_REQUEST" };
  // Internals stay in the log; the run and the UI get a message that is safe to show.
  return { code: "INTERNAL", message: "Something went wrong while refreshing; it has been logged.", retryable: true };
}
