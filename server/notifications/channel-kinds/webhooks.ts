import { sendWebhook, type TWebhookKind } from "../send-webhook";
import { checkUrlTarget, hostName, redactUrl } from "./check-url-target";
import type { TChannelKindDescriptor } from "./types";

/** A JSON POST: ours signed with the channel's secret, Slack's and Discord's in their own shape (send-webhook.ts). */
function webhookKind(kind: TWebhookKind, label: string): TChannelKindDescriptor {
  return {
    kind,
    signed: kind === "webhook",
    checkTarget: checkUrlTarget,
    defaultName: (target) => hostName(label, target),
    redact: kind === "webhook" ? (target) => target : redactUrl,
    send: (config, { channel, deliveryId, message, now }) =>
      sendWebhook(config, { kind, url: channel.target, secret: channel.secret, deliveryId, message, now }),
  };
}

export const webhookChannel = webhookKind("webhook", "Webhook");
export const slackChannel = webhookKind("slack", "Slack");
export const discordChannel = webhookKind("discord", "Discord");
