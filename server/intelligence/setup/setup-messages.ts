import { safeValidateUIMessages } from "ai";
import { setupDataSchemas, type TSetupUIMessage, ZSetupMetadataSchema } from "@/contracts/setup-ui-message";
import type { TDb, TTx } from "../../db";
import type { Prisma } from "../../generated/prisma/client";
import { logger } from "../../logger";

/**
 * The setup transcript: one SetupMessage row per UI message, appended and never rewritten (the one
 * writer of that table). Appending also bumps the session's updatedAt, which orders "most recent".
 */
export async function appendSetupMessages(
  db: TDb,
  input: { sessionId: string; messages: TSetupUIMessage[] },
): Promise<void> {
  if (input.messages.length === 0) return;
  await db.$transaction([
    db.setupMessage.createMany({
      data: input.messages.map((message) => ({
        sessionId: input.sessionId,
        messageId: message.id,
        role: message.role,
        message: JSON.parse(JSON.stringify(message)) as Prisma.InputJsonValue,
      })),
    }),
    db.setupSession.update({ where: { id: input.sessionId }, data: { updatedAt: new Date() } }),
  ]);
}

/**
 * The conversation in order, each stored message validated as a setup UI message. A row that does not
 * validate (written by an older version, edited by hand) is skipped and logged, never deleted.
 */
export async function loadSetupMessages(db: TDb | TTx, input: { sessionId: string }): Promise<TSetupUIMessage[]> {
  const rows = await db.setupMessage.findMany({
    where: { sessionId: input.sessionId },
    orderBy: { id: "asc" },
    select: { id: true, message: true },
  });
  const out: TSetupUIMessage[] = [];
  for (const row of rows) {
    const message = await validateSetupMessage(row.message);
    if (message) out.push(message);
    else logger.warn("setup message skipped: it does not validate", { sessionId: input.sessionId, rowId: row.id });
  }
  return out;
}

/** The text of the first thing the person said in each session (titles for "pick up where you left off"). */
export async function firstUserTexts(db: TDb | TTx, sessionIds: string[]): Promise<Map<string, string>> {
  const rows = await Promise.all(
    sessionIds.map((sessionId) =>
      db.setupMessage.findFirst({ where: { sessionId, role: "user" }, orderBy: { id: "asc" } }),
    ),
  );
  const out = new Map<string, string>();
  for (const row of rows) {
    if (!row) continue;
    const message = await validateSetupMessage(row.message);
    const text = message?.parts.map((p) => (p.type === "text" ? p.text : "")).join("") ?? "";
    if (text) out.set(row.sessionId, text);
  }
  return out;
}

/** Everything the person said in each session, in order (one query), for the unfinished-setups list. */
export async function userTextsBySession(db: TDb | TTx, sessionIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (sessionIds.length === 0) return out;
  const rows = await db.setupMessage.findMany({
    where: { sessionId: { in: sessionIds }, role: "user" },
    orderBy: { id: "asc" },
    select: { sessionId: true, message: true },
  });
  for (const row of rows) {
    const message = await validateSetupMessage(row.message);
    const text = message?.parts.map((p) => (p.type === "text" ? p.text : "")).join("") ?? "";
    if (text) out.set(row.sessionId, [...(out.get(row.sessionId) ?? []), text]);
  }
  return out;
}

export async function validateSetupMessage(value: unknown): Promise<TSetupUIMessage | null> {
  const result = await safeValidateUIMessages<TSetupUIMessage>({
    messages: [value],
    metadataSchema: ZSetupMetadataSchema.optional(),
    dataSchemas: setupDataSchemas,
  });
  return result.success ? (result.data[0] ?? null) : null;
}
