-- CreateIndex
CREATE INDEX "RefreshRun_prunable_createdAt_idx" ON "RefreshRun"("createdAt") WHERE (((status = 'completed'::"RefreshRunStatus") AND (outcome = 'unchanged'::text)) OR (status = 'skipped'::"RefreshRunStatus")) AND ("captureId" IS NULL);
