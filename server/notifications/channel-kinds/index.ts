import type { TChannelKind } from "@/contracts/notification-channel-kinds";
import { emailChannel } from "./email";
import { ntfyChannel } from "./ntfy";
import type { TChannelKindDescriptor } from "./types";
import { discordChannel, slackChannel, webhookChannel } from "./webhooks";

export type { TChannelKindDescriptor } from "./types";

/** Every kind of notification channel, by kind: the code that creates, shows and sends channels reads this map. */
export const CHANNEL_KIND_DESCRIPTORS: Record<TChannelKind, TChannelKindDescriptor> = {
  email: emailChannel,
  webhook: webhookChannel,
  slack: slackChannel,
  discord: discordChannel,
  ntfy: ntfyChannel,
};

export const channelKind = (kind: TChannelKind): TChannelKindDescriptor => CHANNEL_KIND_DESCRIPTORS[kind];
