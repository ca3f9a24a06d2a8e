import { randomBytes } from "node:crypto";
import { type TCreateChannelInput, ZCreateChannelInputSchema } from "@/contracts/notifications";
import { assertPublicTarget } from "../capabilities";
import type { TDb } from "../db";
import { AppError, invalidInputError } from "../errors";
import type { NotificationChannel } from "../generated/prisma/client";
import type { TNotifyConfig } from "./config";

export type TChannelView = {
  id: string;
  kind: NotificationChannel["kind"];
  name: string;
  target: string;
  hasSecret: boolean;
  paused: boolean;
  pausedReason: string | null;
  consecutiveFailures: number;
  lastStatus: string | null;
  lastError: string | null;
  lastDeliveryAt: Date | null;
  createdAt: Date;
};

export function toChannelView(c: NotificationChannel): TChannelView {
  return {
    id: c.id,
    kind: c.kind,
    name: c.name,
    target: c.kind === "email" ? c.target : redactUrl(c.target),
    hasSecret: c.secret !== null,
    paused: c.pausedAt !== null,
    pausedReason: c.pausedReason,
    consecutiveFailures: c.consecutiveFailures,
    lastStatus: c.lastStatus,
    lastError: c.lastError,
    lastDeliveryAt: c.lastDeliveryAt,
    createdAt: c.createdAt,
  };
}

/** Slack and Discord put their secret in the path: show only the origin and the start of it. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 16 ? `${u.pathname.slice(0, 12)}…` : u.pathname;
    return `${u.origin}${path}`;
  } catch {
    return "(invalid URL)";
  }
}

export async function listChannels(db: TDb, input: { userId: string }): Promise<TChannelView[]> {
  const rows = await db.notificationChannel.findMany({
    where: { userId: input.userId },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toChannelView);
}

/** The channel of this person, or NOT_FOUND (another person's id is not found either). */
export async function getOwnChannel(
  db: TDb,
  input: { userId: string; channelId: string },
): Promise<NotificationChannel> {
  const row = await db.notificationChannel.findFirst({ where: { id: input.channelId, userId: input.userId } });
  if (!row) throw new AppError("NOT_FOUND", "No such notification channel.");
  return row;
}

/**
 * Adds a channel. A webhook URL must pass the SSRF rules now (clear refusal; the send re-checks every
 * connection); a webhook gets its own signing secret, returned once here and revealable later by its owner.
 */
export async function createChannel(
  db: TDb,
  input: { userId: string; channel: TCreateChannelInput; config: TNotifyConfig },
): Promise<{ channel: TChannelView; secret: string | null }> {
  const parsed = ZCreateChannelInputSchema.safeParse(input.channel);
  if (!parsed.success) throw invalidInputError(parsed.error.issues);
  const c = parsed.data;
  if (c.kind === "email" && (!input.config.smtp || !input.config.from)) {
    throw new AppError("BAD_REQUEST", "Email is not configured on this server: set SMTP_URL and SMTP_FROM.", {
      fieldErrors: { kind: "Email is not configured on this server." },
    });
  }
  if (c.kind !== "email") {
    try {
      await assertPublicTarget(
        "web.scrape",
        { url: c.target },
        { fetch: input.config.fetch, maps: { apiKey: undefined, baseUrl: "", timeoutMs: 0 } },
      );
    } catch (error) {
      if (error instanceof AppError) {
        const message = error.message.replace(/^Cannot watch/, "Cannot send to");
        throw new AppError("BAD_REQUEST", message, { fieldErrors: { target: message } });
      }
      throw error;
    }
  }
  const secret = c.kind === "webhook" ? randomBytes(32).toString("hex") : null;
  const row = await db.notificationChannel.create({
    data: {
      userId: input.userId,
      kind: c.kind,
      name: c.name || defaultName(c.kind, c.target),
      target: c.target,
      secret,
      unsubscribeToken: randomBytes(24).toString("base64url"),
    },
  });
  return { channel: toChannelView(row), secret };
}

function defaultName(kind: TCreateChannelInput["kind"], target: string): string {
  if (kind === "email") return target;
  const host = URL.canParse(target) ? new URL(target).host : target;
  return `${kind[0]?.toUpperCase()}${kind.slice(1)} · ${host}`;
}

export async function revealChannelSecret(
  db: TDb,
  input: { userId: string; channelId: string },
): Promise<{ secret: string | null }> {
  const row = await getOwnChannel(db, input);
  return { secret: row.secret };
}

export async function deleteChannel(db: TDb, input: { userId: string; channelId: string }): Promise<{ ok: true }> {
  const { count } = await db.notificationChannel.deleteMany({ where: { id: input.channelId, userId: input.userId } });
  if (count === 0) throw new AppError("NOT_FOUND", "No such notification channel.");
  return { ok: true };
}

/** Un-pauses a channel (after repeated failures or an unsubscribe); its failure count starts again. */
export async function resumeChannel(db: TDb, input: { userId: string; channelId: string }): Promise<TChannelView> {
  await getOwnChannel(db, input);
  const row = await db.notificationChannel.update({
    where: { id: input.channelId },
    data: { pausedAt: null, pausedReason: null, consecutiveFailures: 0 },
  });
  return toChannelView(row);
}

/** The email List-Unsubscribe link: the token alone names the channel; it pauses it (resumable in Settings). */
export async function unsubscribeByToken(db: TDb, input: { token: string; now?: Date }): Promise<boolean> {
  const { count } = await db.notificationChannel.updateMany({
    where: { unsubscribeToken: input.token },
    data: { pausedAt: input.now ?? new Date(), pausedReason: "Unsubscribed from the email link." },
  });
  return count > 0;
}

export function unsubscribeUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, "")}/api/notifications/unsubscribe/${encodeURIComponent(token)}`;
}
