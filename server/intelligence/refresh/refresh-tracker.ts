import { randomUUID } from "node:crypto";
import { getModel } from "../../ai";
import type { TDb } from "../../db";
import { getEnv } from "../../env";
import { trackWork } from "../../lifecycle/in-flight-work";
import { logger as rootLogger } from "../../logger";
import { NOTABLE_SIGNALS } from "../definition";
import { ZERO_USAGE } from "../fill";
import { parseLockedDefinition } from "../tracker-store";
import { answerBusy } from "./answer-busy";
import { crawlSource } from "./crawl-source";
import { acceptFields, outcomeOf } from "./decide-change";
import { diffFields } from "./diff-fields";
import { failRun } from "./fail-run";
import { carryFieldHealth } from "./field-health";
import { fillFields } from "./fill-fields";
import { finishRun } from "./finish-run";
import { judgeChanges } from "./judge-changes";
import { keepCapture, startCaptureEncoding } from "./keep-capture";
import { startHeartbeat } from "./keep-lease-alive";
import { budgetCheck } from "./meter-model-calls";
import { conditionalFor, validatorsToKeep } from "./page-validators";
import { precheckContent, precheckNotModified } from "./precheck-content";
import { RefreshFailure } from "./refresh-failure";
import { DEFAULT_LEASE_MS, type TRefreshOptions } from "./refresh-options";
import { existingResult, type TRefreshResult } from "./refresh-result";
import { refreshSet } from "./refresh-set";
import type { TRunContext } from "./run-context";
import { createBufferedLedger } from "./run-record";
import { createStepRecorder } from "./run-steps";
import { takeLease } from "./take-lease";
import { baselineWrites, judgedWrites, stampWrites } from "./timeline-writes";

/**
 * The hot loop, one function for every trigger: crawl → hash pre-check → fill → diff → judge → append
 * (docs/design.md §3), each step in a file of its own beside this one.
 * Never throws for expected failures (bad page, model trouble, in-flight refresh): the result says what
 * happened, the run row records it, and state is only ever written by the final write.
 * An unchanged page costs ONE read (lease + everything the run needs) and ONE write (run record, usage
 * ledger, state stamp, next run — fenced on the lease); on the cron path the claim is the read.
 * Counted as in-flight work, so a graceful shutdown lets it finish even when no request waits for it.
 */
export function refreshTracker(db: TDb, trackerId: string, options: TRefreshOptions): Promise<TRefreshResult> {
  return trackWork("refresh", () => runRefresh(db, trackerId, options));
}

/** Step 1, the lease: a replay or an in-flight answer ends here; a leased run goes on, its lease kept alive. */
async function runRefresh(db: TDb, trackerId: string, options: TRefreshOptions): Promise<TRefreshResult> {
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const log = (options.log ?? rootLogger).child({ trackerId, trigger: options.trigger });
  const key = options.idempotencyKey ?? null;
  const steps = createStepRecorder(undefined, options.onStep);
  const startedAt = now();

  // The lease and everything the run needs, in one statement (or from the claim). Its progress events are
  // sent once it is known to be a run (a replay or an in-flight answer reports no steps).
  const leaseStarted = performance.now();
  const taken = await takeLease(db, { trackerId, options, key, startedAt, leaseMs });
  if (taken.kind === "replay") return existingResult(taken.run, true);
  if (taken.kind === "busy") return answerBusy(db, trackerId, taken.holder, { options, key, startedAt, now });
  const tracker = taken.tracker;
  const runId = tracker.leaseToken.split(":")[0] ?? randomUUID();
  steps.start("lease");
  steps.record({ step: "lease", status: "ok", ms: Math.round(performance.now() - leaseStarted) });

  const fence = { trackerId, leaseToken: tracker.leaseToken };
  const heartbeat =
    options.renewLease === false
      ? null
      : startHeartbeat(db, { ...fence, leasedAt: tracker.leasedAt, leaseMs, now, log });
  const ctx: TRunContext = {
    db,
    options,
    tracker,
    runId,
    trackerId,
    key,
    startedAt,
    now,
    log,
    fence,
    steps,
    ledger: createBufferedLedger(),
    cost: { modelCalls: 0, usage: ZERO_USAGE },
    missingAfter: options.fieldMissingAfter ?? getEnv().FIELD_MISSING_AFTER,
    definitionVersion: null,
  };
  try {
    return await refreshLeased(ctx);
  } catch (error) {
    return await failRun(ctx, error);
  } finally {
    heartbeat?.stop();
  }
}

/** Steps 2–7 of a leased run; any throw fails the run (fail-run.ts) with the state as it was. */
async function refreshLeased(ctx: TRunContext): Promise<TRefreshResult> {
  const { tracker, trackerId, options } = ctx;
  if (tracker.definition === null)
    throw new RefreshFailure("NOT_LOCKED", "This tracker has no locked definition.", false);
  const version = tracker.lockedVersion as number;
  const def = parseLockedDefinition(trackerId, version, tracker.definition);
  ctx.definitionVersion = version;
  const checkBudget = budgetCheck(ctx);

  // The pre-check's salt: the same document under another definition version is new content.
  const hashSalt = `${trackerId}:v${version}`;
  // 2. Crawl, conditional when the last good read's validators may stand for it (page-validators.ts).
  // A page whose hash an entity holds comes back without its HTML, which only new content keeps (docs/refresh.md,
  // "Unchanged pages"); a stale bundle's hashes may be out of date, so it names none.
  const knownHashes = tracker.stale
    ? []
    : tracker.entities.flatMap((e) => (e.contentHash === null ? [] : [e.contentHash]));
  const crawl = await crawlSource(ctx, {
    def,
    hashSalt,
    conditional: conditionalFor(tracker, { def, version }),
    knownHashes,
  });

  // 3. Pre-check. Unchanged: the state stamp rides in the run's one final write; each field reads what it read last
  // time, so a miss counts one more run (nothing is added to the write when every field reads). A 304 is unchanged
  // without a download, a parse or a hash (docs/refresh.md "Conditional requests").
  if (crawl.kind === "not-modified") {
    const { conditional } = crawl;
    return await finishRun(ctx, {
      outcome: "unchanged",
      summary: "no change (not modified)",
      writes: stampWrites(precheckNotModified(ctx, conditional)),
      health: carryFieldHealth(tracker.fieldHealth, ctx.missingAfter),
      // A 304 that names the same body anew (a new ETag, say) is kept; one that says nothing keeps what was sent.
      validators: validatorsToKeep(tracker, {
        version,
        served: {
          etag: crawl.validators?.etag ?? conditional.etag,
          lastModified: crawl.validators?.lastModified ?? conditional.lastModified,
        },
        entityId: conditional.entityId,
        contentHash: conditional.contentHash,
      }),
    });
  }
  let capture = crawl.capture;
  let pre = await precheckContent(ctx, { capture, hashSalt });
  if (pre.kind === "new" && capture.htmlOmitted) {
    // A known hash that is new for the entity the page names (not expected: the hash covers what names it): the
    // capture needs the HTML left out, so the page is read again in full.
    const again = await crawlSource(ctx, { def, hashSalt, conditional: null });
    if (again.kind !== "read") throw new RefreshFailure("CAPABILITY_FAILED", "The page could not be read again.", true);
    capture = again.capture;
    pre = await precheckContent(ctx, { capture, hashSalt });
  }
  // The 200's validators, kept by the final write with the state they describe (nothing added when unchanged).
  const validators = def.set
    ? undefined
    : validatorsToKeep(tracker, {
        version,
        served: capture.validators,
        entityId: pre.entityId,
        contentHash: pre.contentHash,
      });
  const models = options.models ?? { filler: getModel("filler"), judge: getModel("judge") };
  // A set with members missing but not yet gone counts this read too, unchanged or not (docs/sets.md).
  const settling = pre.kind === "unchanged" && def.set && capture.items ? pendingSetState(tracker, pre.entityId) : null;
  if (def.set && capture.items && (pre.kind === "new" || settling)) {
    const { entityId, contentHash } = pre;
    const previousState = pre.kind === "new" ? pre.state : settling;
    return await refreshSet(ctx, {
      def: { ...def, set: def.set },
      version,
      items: capture.items,
      entityId,
      contentHash,
      previousState,
      encoded: startCaptureEncoding({ trackerId, entityId, capture }),
      model: models.judge,
      checkBudget,
    });
  }
  if (pre.kind === "unchanged") {
    return await finishRun(ctx, {
      outcome: "unchanged",
      summary: "no change",
      writes: stampWrites(pre),
      health: carryFieldHealth(tracker.fieldHealth, ctx.missingAfter),
      validators,
    });
  }
  const { entityId, contentHash, state, reformatted } = pre;
  const encoded = startCaptureEncoding({ trackerId, entityId, capture });

  // 4. Fill.
  const filled = await fillFields(ctx, { def, capture, model: models.filler, checkBudget });
  await options.afterFill?.();

  // 5. Diff, field health with it.
  const { previous, carried, health, deltas } = await diffFields(ctx, { def, state, filled, capture });
  const basis = { def, decision: tracker.decision, observed: filled.record, deltas };

  // One-time re-hash under a new document format (docs/design.md §3 step 2): baseline-preserving. No tracked
  // field moved → store the new hash like an unchanged page (no change row, no judge call; the fill
  // needed no model call when extractors cover every field). Wording-only notable_signals are ignored.
  if (state && reformatted && Object.keys(deltas).every((field) => field === NOTABLE_SIGNALS)) {
    return await finishRun(ctx, {
      outcome: "unchanged",
      summary: "no change (re-hashed under a new page format)",
      writes: stampWrites({ entityId, contentHash }),
      keep: await keepCapture(encoded, { ...basis, decisions: {} }),
      health,
      validators,
    });
  }

  // First run: the baseline.
  if (!state) {
    return await finishRun(ctx, {
      outcome: "baseline",
      summary: `baseline recorded (${Object.keys(deltas).length} field(s))`,
      keep: await keepCapture(encoded, { ...basis, decisions: {} }),
      health,
      validators,
      writes: baselineWrites({
        entityId,
        trackerId,
        runId: ctx.runId,
        version,
        deltas,
        fields: filled.record,
        contentHash,
      }),
    });
  }

  // 6. Judge.
  const decisions = await judgeChanges(ctx, { def, version, deltas, model: models.judge, checkBudget });

  // 7. Append.
  const { outcome, kept, summary } = outcomeOf(deltas, decisions.byField);
  const nextFields = acceptFields(def, previous, carried, deltas, decisions.byField);
  const recorded = outcome === "material" || outcome === "notable" ? outcome : null;
  return await finishRun(ctx, {
    outcome,
    summary,
    keep: await keepCapture(encoded, { ...basis, decisions: decisions.byField, bound: decisions.bound }),
    health,
    validators,
    writes: judgedWrites({
      userId: tracker.userId,
      entityId,
      trackerId,
      runId: ctx.runId,
      version,
      bound: decisions.bound,
      recorded,
      kept,
      decisions: decisions.byField,
      citations: decisions.citations,
      nextFields,
      observed: filled.record,
      contentHash,
    }),
    changed: recorded,
  });
}

/** The set's own state when some members are missing but not yet gone (they must be counted); null when settled. */
function pendingSetState(tracker: TRunContext["tracker"], entityId: string): { fields: unknown } | null {
  const fields = tracker.entities.find((e) => e.id === entityId)?.fields as { missing?: unknown } | null | undefined;
  return typeof fields?.missing === "number" && fields.missing > 0 ? { fields } : null;
}
