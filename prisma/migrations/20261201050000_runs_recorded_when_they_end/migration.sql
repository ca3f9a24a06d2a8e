-- Runs are now written once, when they end (issue "Refresh at the floor"). Runs left pending or running
-- by the old two-step bookkeeping never finished: say so, so the runs log has none that never end.
UPDATE "RefreshRun"
SET "status" = 'failed',
    "outcome" = 'interrupted',
    "summary" = 'interrupted: the process running it stopped before it finished',
    "error" = '{"code": "INTERRUPTED", "message": "The refresh was interrupted before it finished.", "retryable": true}'::jsonb,
    "finishedAt" = COALESCE("finishedAt", "startedAt", "createdAt")
WHERE "status" IN ('pending', 'running');
