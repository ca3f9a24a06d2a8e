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
  type TUsageInfo,
} from "../../capabilities";
import { keepBoundValuesSql, retrieveContextChunks, type TResolvedContextValue } from "../../context";
import type { TDb } from "../../db";
import type { TCte } from "../../db-cte";
import { getEnv } from "../../env";
import { isAppError } from "../../errors";
import { prepareEvent, type TCheckOutcome, type TPreparedEvent } from "../../events";
import { trackWork } from "../../lifecycle/in-flight-work";
import { logger as rootLogger, type TLogger } from "../../logger";
import {
  appendChangeSql,
  encodeCapture,
  ensureEntity,
  findOrCarryEntity,
  getCurrentState,
  stampCheckedSql,
  storeCaptureSql,
  type TEncodedCapture,
  writeCurrentStateSql,
} from "../../timeline";
import { assertModelBudget } from "../../usage";
import { NOTABLE_SIGNALS, type TRecord } from "../definition";
import { diffRecords } from "../diff";
import { addUsage, cssQueriesOf, fillRecord, type TModelUsage, ZERO_USAGE } from "../fill";
import type { TContextRetriever } from "../judge";
import { replayBasisOf, storedCapturePayload, type TReplayBasis } from "../replay/replay-basis";
import {
  leaseAndLoad,
  parseLockedDefinition,
  refreshFailureSql,
  refreshSuccessSql,
  rememberRenderDecision,
  renewLease,
  type TExistingRun,
  type TLoadedTracker,
} from "../tracker-store";
import { acceptFields, judgeAll, outcomeOf, type TDecision } from "./decide-change";
import { describeRender, renderInfoOf } from "./describe-render";
import { carryFieldHealth, nextFieldHealth, type THealthUpdate } from "./field-health";
import type { TFinalWriter } from "./final-write-batch";
import { readCapture } from "./read-capture";
import {
  createBufferedLedger,
  findRunByKey,
  recordSkippedRun,
  runIdFor,
  type TRunFinalInput,
  type TRunRecord,
  writeRunFinal,
} from "./run-record";
import { createStepRecorder, type TOnStep, type TRunStep } from "./run-steps";

export const ZRefreshTriggerSchema = z.enum(["manual", "cron", "worker", "scheduler", "agent", "api", "setup"]);
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
  /** How long a lease lasts without renewal; a live run renews it every third of this. */
  leaseMs?: number;
  /** Test seam: false simulates a process that stopped renewing its lease (hung or killed). */
  renewLease?: boolean;
  /** A tracker the claim already leased and loaded (the cron / worker path): no read of its own. */
  claimed?: TLoadedTracker;
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
 * happened, the run row records it, and state is only ever written by the final write.
 * An unchanged page costs ONE read (lease + everything the run needs) and ONE write (run record, usage
 * ledger, state stamp, next run — fenced on the lease); on the cron path the claim is the read.
 * Counted as in-flight work, so a graceful shutdown lets it finish even when no request waits for it.
 */
export function refreshTracker(db: TDb, trackerId: string, options: TRefreshOptions): Promise<TRefreshResult> {
  return trackWork("refresh", () => runRefresh(db, trackerId, options));
}

async function runRefresh(db: TDb, trackerId: string, options: TRefreshOptions): Promise<TRefreshResult> {
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const log = (options.log ?? rootLogger).child({ trackerId, trigger: options.trigger });
  const key = options.idempotencyKey ?? null;
  const steps = createStepRecorder(undefined, options.onStep);
  const startedAt = now();

  // 1. The lease and everything the run needs, in one statement (or from the claim). Its progress events are
  // sent once it is known to be a run (a replay or an in-flight answer reports no steps).
  const leaseStarted = performance.now();
  const taken = options.claimed
    ? await resumeClaim(db, options.claimed, { now: startedAt, leaseMs })
    : await leaseAndLoad(db, {
        trackerId,
        // The lease token is "runId:random" per attempt, so a slow attempt that lost its lease to a
        // takeover of the same run cannot pass the final fencing check.
        leaseToken: `${runIdFor(trackerId, key)}:${randomUUID()}`,
        now: startedAt,
        leaseMs,
        idempotencyKey: key,
      });
  if (taken.kind === "replay") return existingResult(taken.run, true);
  if (taken.kind === "busy") return answerBusy(db, trackerId, taken.holder, { options, key, startedAt, now });
  const tracker = taken.tracker;
  const run = { id: tracker.leaseToken.split(":")[0] ?? randomUUID(), trackerId, trigger: options.trigger, key };
  steps.start("lease");
  steps.record({ step: "lease", status: "ok", ms: Math.round(performance.now() - leaseStarted) });

  const fence = { trackerId, leaseToken: tracker.leaseToken };
  const heartbeat =
    options.renewLease === false
      ? null
      : startHeartbeat(db, { ...fence, leasedAt: tracker.leasedAt, leaseMs, now, log });
  const ledger = createBufferedLedger();
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
  const version = tracker.lockedVersion as number;
  let definitionVersion: number | null = null;
  const record = (ending: { status: TRunRecord["status"]; outcome: string | null; summary: string }): TRunRecord => ({
    id: run.id,
    trackerId,
    trigger: options.trigger,
    idempotencyKey: key,
    ...ending,
    definitionVersion,
    steps: steps.steps,
    modelCalls: cost.modelCalls,
    usage: cost.usage,
    error: null,
    startedAt,
    finishedAt: now(),
  });
  // Whoever shows this tracker (its open page) hears that the run ended, whatever it found.
  const checked = (outcome: TCheckOutcome) =>
    prepareEvent("tracker.checked", { userId: tracker.userId, trackerId: tracker.id, outcome });
  // Everything a successful ending shares; each ending adds its outcome, summary and writes.
  const missingAfter = options.fieldMissingAfter ?? getEnv().FIELD_MISSING_AFTER;
  const finish = ({
    keep,
    writes,
    changed,
    ...ending
  }: Pick<TFinishInput, "outcome" | "summary" | "health"> & {
    keep?: TKeptCapture;
    /** The timeline's parts; `at` is the run's end, which every time they write is; each guarded on `guard`. */
    writes: (at: Date, guard: string) => TCte[];
    changed?: "material" | "notable" | null;
  }) =>
    finishRun({
      ...ending,
      // An unchanged run's write may join the claim loop's batch; one that stores or changes anything is its own.
      write:
        options.finalWrites && ending.outcome === "unchanged" && !keep && !changed
          ? options.finalWrites.write
          : (input) => writeRunFinal(db, input),
      checked: checked(ending.outcome),
      // Whoever shows trackers (the feed, open tracker pages) hears of a recorded change once it committed; the hot
      // loop does not know them (docs/design.md §2).
      changed: changed
        ? prepareEvent("tracker.changed", { userId: tracker.userId, trackerId: tracker.id, materiality: changed })
        : undefined,
      fence,
      scheduleMinutes: tracker.scheduleMinutes,
      steps,
      ledger: ledger.entries,
      extra: (at, guard) => (keep ? [...writes(at, guard), storeCaptureSql(keep.capture, guard)] : writes(at, guard)),
      record: (outcome, summary) => ({
        ...record({ status: "completed", outcome, summary }),
        ...(keep ? { captureId: keep.capture.id, replayBasis: keep.basis } : {}),
      }),
    });
  try {
    if (tracker.definition === null)
      throw new RefreshFailure("NOT_LOCKED", "This tracker has no locked definition.", false);
    const def = parseLockedDefinition(trackerId, version, tracker.definition);
    definitionVersion = version;
    const models = options.models ?? { filler: getModel("filler"), judge: getModel("judge") };
    // Before each model step (not before code-only ones): the owner's monthly token budget. Spent → this run fails
    // with BUDGET_EXCEEDED before any call, and the state stays as it was (docs/design.md §9).
    const checkBudget = () => assertModelBudget(db, { userId: tracker.userId, now: now() });

    // The pre-check's salt: the same document under another definition version is new content.
    const hashSalt = `${trackerId}:v${version}`;
    // 2. Crawl.
    const capture = await steps.time(
      "crawl",
      async () => {
        const envelope = await executeCapability(tracker.capability, tracker.capabilityInput, {
          config: options.capabilityConfig ?? capabilityConfigFromEnv(),
          ledger,
          callKey: `crawl:${tracker.capability}`,
          // CSS extractors are answered from the crawl's own parse of the page (one parse, off the event loop).
          cssQueries: cssQueriesOf(def),
          // ...and so is the pre-check's hash (computed there beside the document, by the same function as below).
          hashSalt,
        });
        if (envelope.status !== "completed" || !envelope.results) {
          const error = envelope.error;
          throw new RefreshFailure(
            error?.code ?? "CAPABILITY_FAILED",
            error?.message ?? `${tracker.capability} returned no data.`,
            error?.retryable ?? true,
          );
        }
        return {
          ...readCapture(tracker.capability, tracker.capabilityInput, envelope.results, def.identityRule),
          render: renderInfoOf(envelope.results),
        };
      },
      (c) => (c.render ? `${c.entityKey} · ${describeRender(c.render)}` : c.entityKey),
    );
    // `auto` found a page that only JavaScript fills: remember it, so the next refreshes render straight away
    // (one write, once per tracker; plain pages never write anything here).
    if (
      capture.render?.autoRender === true &&
      (tracker.capabilityInput as { autoRender?: unknown }).autoRender !== true
    )
      await rememberRenderDecision(db, { trackerId, autoRender: true });

    // 3. Pre-check: same document under the same definition version → nothing to do, no model call, and
    // (with the entity in the bundle) no statement before the final write.
    const contentHash = capture.contentHash ?? hashStructuredDocument(capture.document, hashSalt);
    const format = documentFormatOfHash(contentHash);
    const known = tracker.stale ? undefined : tracker.entities.find((e) => e.entityKey === capture.entityKey.trim());
    // Unchanged: the state stamp rides in the run's one final write.
    const stamp = (entityId: string) => (at: Date, guard: string) => [
      stampCheckedSql({ entityId, contentHash, checkedAt: at, guard }),
    ];
    // Same page, same definition: each field reads what it read last time, so a miss counts one more run (nothing is
    // added to the write when every field reads).
    const unchangedHealth = () => carryFieldHealth(tracker.fieldHealth, missingAfter);
    if (known?.contentHash === contentHash) {
      steps.record({ step: "precheck", status: "ok", ms: 0, detail: "unchanged" });
      return await finish({
        outcome: "unchanged",
        summary: "no change",
        writes: stamp(known.id),
        health: unchangedHealth(),
      });
    }
    // New document formats may derive entity keys differently (sessions stripped): an entity stored under
    // an older format keeps its timeline under the new key (one-time; see find-or-carry-entity.ts).
    const entity =
      known ??
      (await findOrCarryEntity(db, {
        trackerId,
        entityKey: capture.entityKey,
        isOlderFormat: (stored) => documentFormatOfHash(stored) < format,
      })) ??
      (await ensureEntity(db, { trackerId, entityKey: capture.entityKey }));
    // The accepted record to diff against comes with the bundle (no statement); only an entity the bundle did not
    // have (new, carried over, or a stale claim) is read.
    const state = known
      ? known.contentHash === null
        ? null
        : { contentHash: known.contentHash, fields: known.fields ?? {} }
      : await getCurrentState(db, entity.id);
    if (state && state.contentHash === contentHash) {
      steps.record({ step: "precheck", status: "ok", ms: 0, detail: "unchanged" });
      return await finish({
        outcome: "unchanged",
        summary: "no change",
        writes: stamp(entity.id),
        health: unchangedHealth(),
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

    // New content: the run stores what it saw (issue 18). Encoded now, so that its compression (off the main thread)
    // overlaps the fill's model call; a run that fails before its end discards it.
    const encoded = encodeCapture({
      trackerId,
      entityId: entity.id,
      payload: storedCapturePayload({ raw: capture.raw, entityKey: capture.entityKey, source: capture.source }),
    });
    encoded.catch(() => {}); // awaited by keepCapture; a failure there fails the run like any other step

    // 4. Fill.
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

    // 5. Diff (code) against the accepted record. A field that read before and reads nothing now is a miss, not a
    // change: it keeps its last value here and is counted in the tracker's field health (docs/field-health.md).
    const previous = (state?.fields as TRecord | undefined) ?? null;
    const { carried, ...health } = nextFieldHealth({
      def,
      previous,
      record: filled.record,
      warnings: filled.warnings,
      prior: tracker.fieldHealth,
      page: {
        rendered: capture.render?.rendered === true,
        mode: (tracker.capabilityInput as { render?: string } | null)?.render,
        html: capture.raw.html,
        document: capture.document,
        css: capture.raw.css,
      },
      after: missingAfter,
    });
    const deltas = await steps.time(
      "diff",
      async () => diffRecords(previous, carried, def),
      (d) => `${Object.keys(d).length} delta(s)`,
    );

    // What it saw and what it decided, in its own final statement, so a replay can run any definition over it
    // later. Unchanged pages never get here, so they store nothing.
    const keepCapture = async (
      byField: Record<string, TDecision>,
      bound?: Record<string, TResolvedContextValue | null>,
    ): Promise<TKeptCapture> => ({
      capture: await encoded,
      basis: replayBasisOf({
        def,
        decision: tracker.decision,
        observed: filled.record,
        deltas,
        decisions: byField,
        ...(bound ? { bound } : {}),
      }),
    });

    // One-time re-hash under a new document format (docs/design.md §3 step 2): baseline-preserving. No tracked
    // field moved → store the new hash like an unchanged page (no change row, no judge call; the fill
    // needed no model call when extractors cover every field). Wording-only notable_signals are ignored.
    if (state && reformatted && Object.keys(deltas).every((field) => field === NOTABLE_SIGNALS)) {
      return await finish({
        outcome: "unchanged",
        summary: "no change (re-hashed under a new page format)",
        writes: stamp(entity.id),
        keep: await keepCapture({}),
        health,
      });
    }

    // First run: the baseline.
    if (!state) {
      return await finish({
        outcome: "baseline",
        summary: `baseline recorded (${Object.keys(deltas).length} field(s))`,
        keep: await keepCapture({}),
        health,
        writes: (capturedAt, guard) => [
          ...appendChangeSql({
            entityId: entity.id,
            trackerId,
            runId: run.id,
            capturedAt,
            delta: deltas,
            materiality: "baseline",
            decisions: {},
            definitionVersion: version,
            guard,
          }),
          writeCurrentStateSql({
            entityId: entity.id,
            fields: filled.record,
            contentHash,
            definitionVersion: version,
            checkedAt: capturedAt,
            guard,
          }),
        ],
      });
    }

    // 6. Judge: rules first (free, reproducible), then one model call for whatever they cannot decide.
    const decisions = await metered(
      steps.time(
        "judge",
        () =>
          judgeAll(db, def, deltas, {
            decision: tracker.decision,
            owner: { userId: tracker.userId, trackerId },
            version,
            model: models.judge,
            retrieve: options.retrieveContext ?? ((q) => retrieveContextChunks(db, q)),
            beforeModelCall: checkBudget,
            ...(options.maxModelRetries !== undefined ? { maxRetries: options.maxModelRetries } : {}),
          }),
        (j) => `${j.modelCalls} model call(s)`,
      ),
    );

    // 7. Append.
    const { outcome, kept, summary } = outcomeOf(deltas, decisions.byField);
    const nextFields = acceptFields(def, previous, carried, deltas, decisions.byField);
    const recorded = outcome === "material" || outcome === "notable" ? outcome : null;
    return await finish({
      outcome,
      summary,
      keep: await keepCapture(decisions.byField, decisions.bound),
      health,
      writes: (capturedAt, guard) => [
        // The values read from context files, kept so that a rule whose file goes keeps deciding with them.
        ...keepBoundValuesSql({
          userId: tracker.userId,
          trackerId,
          version,
          bound: decisions.bound,
          at: capturedAt,
          guard,
        }),
        ...(recorded
          ? appendChangeSql({
              entityId: entity.id,
              trackerId,
              runId: run.id,
              capturedAt,
              delta: kept,
              materiality: recorded,
              decisions: decisions.byField,
              citations: decisions.citations,
              definitionVersion: version,
              guard,
            })
          : []),
        writeCurrentStateSql({
          entityId: entity.id,
          fields: nextFields,
          observed: filled.record,
          contentHash,
          definitionVersion: version,
          checkedAt: capturedAt,
          guard,
        }),
      ],
      changed: recorded,
    });
  } catch (error) {
    const failure = describeFailure(error);
    if (failure.code === "INTERNAL") log.error("refresh failed unexpectedly", { error });
    else log.warn("refresh failed", { code: failure.code, message: failure.message });
    const failed = {
      ...record({ status: "failed", outcome: null, summary: `failed: ${failure.message}` }),
      error: failure,
    };
    // State untouched; the run says what went wrong; only the lease holder updates the tracker's failure
    // bookkeeping (backoff + jitter) and releases the lease. One statement (with the event's NOTIFY in it).
    const event = checked("failed");
    await writeRunFinal(db, {
      fence: refreshFailureSql({
        ...fence,
        scheduleMinutes: tracker.scheduleMinutes,
        now: failed.finishedAt,
        previousFailures: tracker.consecutiveFailures,
        message: failure.message,
      }),
      run: failed,
      ledger: ledger.entries,
      fenced: false,
      notify: [event.notify],
    });
    event.deliverHere();
    return recordResult(failed, false);
  } finally {
    heartbeat?.stop();
  }
}

/**
 * A claimed tracker waits in its claimer's queue until a lane is free: if that took a good part of the
 * lease, renew it first — lost (expired and taken over meanwhile) → this claim is answered "in flight".
 */
async function resumeClaim(
  db: TDb,
  claimed: TLoadedTracker,
  input: { now: Date; leaseMs: number },
): Promise<{ kind: "leased"; tracker: TLoadedTracker } | { kind: "busy"; holder: string | null }> {
  if (input.now.getTime() - claimed.leasedAt.getTime() < input.leaseMs / 3) return { kind: "leased", tracker: claimed };
  const held = await renewLease(db, { trackerId: claimed.id, leaseToken: claimed.leaseToken, ...input });
  return held ? { kind: "leased", tracker: { ...claimed, leasedAt: input.now } } : { kind: "busy", holder: null };
}

/**
 * Another refresh holds the lease. The same idempotency key in flight (its run id is the holder token's
 * first part) → "running" with that run's id; the run records itself when it ends. Otherwise this call is
 * recorded as skipped with its answer, so the runs log has no run that never ends and a replay of its key
 * answers the same without a fetch.
 */
async function answerBusy(
  db: TDb,
  trackerId: string,
  holder: string | null,
  input: { options: TRefreshOptions; key: string | null; startedAt: Date; now: () => Date },
): Promise<TRefreshResult> {
  const runId = runIdFor(trackerId, input.key);
  if (input.key && holder?.startsWith(`${runId}:`)) {
    return { runId, status: "running", outcome: null, summary: "running", modelCalls: 0, error: null, replayed: true };
  }
  const skipped: TRunRecord = {
    id: runId,
    trackerId,
    trigger: input.options.trigger,
    idempotencyKey: input.key,
    status: "skipped",
    outcome: "in_flight",
    summary: "skipped: in flight",
    definitionVersion: null,
    steps: [],
    modelCalls: 0,
    usage: ZERO_USAGE,
    error: null,
    startedAt: input.startedAt,
    finishedAt: input.now(),
  };
  if (await recordSkippedRun(db, skipped)) return recordResult(skipped, false);
  // Lost a race to another delivery of the same key: answer from its run.
  const existing = input.key ? await findRunByKey(db, trackerId, input.key) : null;
  return existing ? existingResult(existing, true) : recordResult(skipped, false);
}

/** Renews the lease every third of its length while the run is alive (a timer that does not keep the process up). */
function startHeartbeat(
  db: TDb,
  input: { trackerId: string; leaseToken: string; leasedAt: Date; leaseMs: number; now: () => Date; log: TLogger },
): { stop: () => void } {
  const timer = setInterval(
    () => {
      renewLease(db, {
        trackerId: input.trackerId,
        leaseToken: input.leaseToken,
        now: input.now(),
        leaseMs: input.leaseMs,
      })
        .then((held) => {
          if (!held) input.log.warn("refresh lost its lease; its final write will be fenced off");
        })
        .catch((error: unknown) => input.log.warn("lease renewal failed", { error }));
    },
    Math.max(1, Math.floor(input.leaseMs / 3)),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function existingResult(run: TExistingRun, replayed: boolean): TRefreshResult {
  return {
    runId: run.id,
    status: run.status === "pending" ? "running" : run.status,
    outcome: (run.outcome as TRefreshOutcome | null) ?? null,
    summary: run.summary ?? run.status,
    modelCalls: run.modelCalls,
    error: run.error,
    replayed,
  };
}

function recordResult(run: TRunRecord, replayed: boolean): TRefreshResult {
  return {
    runId: run.id,
    status: run.status,
    outcome: (run.outcome as TRefreshOutcome | null) ?? null,
    summary: run.summary,
    modelCalls: run.modelCalls,
    error: run.error,
    replayed,
  };
}

type TFinishInput = {
  fence: { trackerId: string; leaseToken: string };
  scheduleMinutes: number;
  outcome: Exclude<TCheckOutcome, "failed">;
  /** Field health after this run, folded into the tracker's bookkeeping; absent → kept as it was. */
  health?: THealthUpdate | null | undefined;
  /** `tracker.checked`, folded into the final statement and delivered here once it committed. */
  checked: TPreparedEvent;
  /** `tracker.changed` for a recorded change, the same way. */
  changed?: TPreparedEvent | undefined;
  summary: string;
  steps: ReturnType<typeof createStepRecorder>;
  ledger: { callKey: string; info: TUsageInfo }[];
  record: (outcome: TRefreshOutcome, summary: string) => TRunRecord;
  /**
   * The timeline's parts at the run's end, each guarded on the fence: unchanged, the state stamp; new content, the
   * change row (and its outbox row), the new state and the capture.
   */
  extra: (at: Date, guard: string) => TCte[];
  /** Where the write goes: its own statement (`writeRunFinal`), or a batch of the claim loop's (final-write-batch.ts). */
  write: (input: TRunFinalInput) => Promise<{ held: boolean }>;
};

/** New content's capture and what the run decided from it (issue 18). */
type TKeptCapture = { capture: TEncodedCapture; basis: TReplayBasis };

/**
 * The one write of a successful run, unchanged or not: run record, usage ledger and tracker bookkeeping (fenced on
 * the lease, which also writes the next run) and the timeline's parts, in ONE statement — no transaction, no
 * read-back (docs/design.md §3). Lost the lease → nothing written, LEASE_LOST.
 */
async function finishRun(input: TFinishInput): Promise<TRefreshResult> {
  input.steps.start("append");
  const appendStarted = performance.now();
  // The write's own duration cannot be inside its own record: "append" measures up to sending it.
  const step: TRunStep = { step: "append", status: "ok", ms: Math.round(performance.now() - appendStarted) };
  input.steps.steps.push(step);
  const run = input.record(input.outcome, input.summary);
  const { held } = await input.write({
    fence: refreshSuccessSql({
      ...input.fence,
      scheduleMinutes: input.scheduleMinutes,
      now: run.finishedAt,
      fieldHealth: input.health,
    }),
    run,
    ledger: input.ledger,
    fenced: true,
    extra: (guard) => input.extra(run.finishedAt, guard),
    notify: [input.checked.notify, input.changed?.notify ?? null],
  });
  if (!held)
    throw new RefreshFailure("LEASE_LOST", "Another refresh took over this tracker; nothing was written.", true);
  input.checked.deliverHere();
  input.changed?.deliverHere();
  input.steps.announce(step);
  return recordResult(run, false);
}

function describeFailure(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof RefreshFailure) return { code: error.code, message: error.message, retryable: error.retryable };
  if (isAppError(error)) return { code: error.code, message: error.message, retryable: error.code !== "BAD_REQUEST" };
  // Internals stay in the log; the run and the UI get a message that is safe to show.
  return { code: "INTERNAL", message: "Something went wrong while refreshing; it has been logged.", retryable: true };
}
