-- Setup transcripts move from one JSON array per session (rewritten whole on every turn) to one row per
-- message (appended). Every stored message is carried over, in order; the column is dropped only after.

-- CreateTable
CREATE TABLE "SetupMessage" (
    "id" SERIAL NOT NULL,
    "sessionId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "message" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SetupMessage_pkey" PRIMARY KEY ("id")
);

-- Carry over the stored transcripts: one row per array element, sessions oldest first, elements in array
-- order (the serial id follows the sorted rows). An element without an id gets a stable one (and it is
-- written into the message); a non-object element is kept, wrapped, so nothing is lost — loading skips what
-- does not validate as a message.
INSERT INTO "SetupMessage" ("sessionId", "messageId", "role", "message", "createdAt")
SELECT
    s."id",
    COALESCE(NULLIF(m.value ->> 'id', ''), 'legacy-' || s."id" || '-' || m.ord::text),
    COALESCE(m.value ->> 'role', 'unknown'),
    CASE
        WHEN jsonb_typeof(m.value) = 'object' THEN
            jsonb_set(m.value, '{id}', to_jsonb(COALESCE(NULLIF(m.value ->> 'id', ''), 'legacy-' || s."id" || '-' || m.ord::text)))
        ELSE jsonb_build_object('legacy', m.value)
    END,
    s."updatedAt"
FROM "SetupSession" s
CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(s."messages") = 'array' THEN s."messages" ELSE '[]'::jsonb END
) WITH ORDINALITY AS m(value, ord)
ORDER BY s."createdAt", s."id", m.ord;

-- AlterTable
ALTER TABLE "SetupSession" DROP COLUMN "messages";

-- CreateIndex
CREATE INDEX "SetupMessage_sessionId_id_idx" ON "SetupMessage"("sessionId", "id");

-- CreateIndex
CREATE INDEX "SetupMessage_sessionId_role_id_idx" ON "SetupMessage"("sessionId", "role", "id");

-- AddForeignKey
ALTER TABLE "SetupMessage" ADD CONSTRAINT "SetupMessage_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "SetupSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;
