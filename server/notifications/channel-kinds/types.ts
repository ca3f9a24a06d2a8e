import type { TChannelKind } from "@/contracts/notification-channel-kinds";
import type { NotificationChannel } from "../../generated/prisma/client";
import type { TNotifyConfig } from "../config";
import type { TMessage } from "../render-message";

/**
 * The server half of a notification channel kind (docs/notifications.md): everything the rest of the code asks of
 * it. The form half (label, target field, target validation) is CHANNEL_FORMS in contracts.
 */
export type TChannelKindDescriptor = {
  kind: TChannelKind;
  /** A signing secret is made for each channel of this kind (returned once, revealable by its owner). */
  signed: boolean;
  /** Refuses a target this server cannot send to (email not configured, a private address), with a clear message. */
  checkTarget: (config: TNotifyConfig, target: string) => Promise<void>;
  /** The name a channel gets when the person gives none. */
  defaultName: (target: string) => string;
  /** The target as Settings shows it: without the parts that are a secret (a webhook path, an ntfy topic). */
  redact: (target: string) => string;
  /** One delivery; throws with what the receiver said on failure. `deliveryId` is the same on a resend. */
  send: (
    config: TNotifyConfig,
    input: { channel: NotificationChannel; deliveryId: string; message: TMessage; now: Date; unsubscribeUrl: string },
  ) => Promise<void>;
};
