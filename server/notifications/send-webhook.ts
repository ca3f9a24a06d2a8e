import { createHmac } from "node:crypto";
import { safeFetch } from "../capabilities";
import type { TNotifyConfig } from "./config";
import type { TMessage } from "./render-message";

export type TWebhookKind = "webhook" | "slack" | "discord";

export const SIGNATURE_HEADER = "x-bellwether-signature";
export const TIMESTAMP_HEADER = "x-bellwether-timestamp";
export const DELIVERY_HEADER = "x-bellwether-delivery";

/** `sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>.<body>") — docs/notifications.md ("Verifying a webhook") shows how to verify it. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The JSON body per kind: ours (every field), Slack's `{text}` (mrkdwn) or Discord's `{content}` (≤ 2000 chars). */
export function webhookBody(kind: TWebhookKind, deliveryId: string, message: TMessage, now: Date): string {
  if (kind === "slack") return JSON.stringify({ text: `*${message.subject}*\n${message.text}`.slice(0, 39_000) });
  if (kind === "discord") {
    const content = `**${message.subject}**\n${message.text}`;
    return JSON.stringify({
      content: content.length > 2000 ? `${content.slice(0, 1999)}…` : content,
      allowed_mentions: { parse: [] },
    });
  }
  return JSON.stringify({
    id: deliveryId,
    type: message.type,
    sentAt: now.toISOString(),
    subject: message.subject,
    text: message.text,
    url: message.url,
    changes: message.changes,
  });
}

/**
 * One POST under the SSRF rules (the guarded fetch of server/capabilities: private addresses refused at every
 * connection, no redirects). Any 2xx is delivered; anything else throws with what the receiver said.
 */
export async function sendWebhook(
  config: TNotifyConfig,
  input: { kind: TWebhookKind; url: string; secret: string | null; deliveryId: string; message: TMessage; now: Date },
): Promise<void> {
  const body = webhookBody(input.kind, input.deliveryId, input.message, input.now);
  const timestamp = Math.floor(input.now.getTime() / 1000);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    [DELIVERY_HEADER]: input.deliveryId,
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (input.secret) headers[SIGNATURE_HEADER] = signPayload(input.secret, timestamp, body);
  await safeFetch(input.url, config.fetch, { post: { body, headers }, accept: "*/*" });
}
