import { z } from "zod";

/**
 * What the Settings form and the validation of a new channel need to know about each kind of notification channel —
 * the client-safe half of a channel's descriptor (docs/notifications.md); the server half (check, send, redact) is in
 * server/notifications/channel-kinds/. Adding a kind is one entry here and one file there.
 */

export const CHANNEL_KINDS = ["email", "webhook", "slack", "discord", "ntfy"] as const;
export const ZChannelKindSchema = z.enum(CHANNEL_KINDS);
export type TChannelKind = z.infer<typeof ZChannelKindSchema>;

export type TChannelForm = {
  /** In the kind select and beside each channel. */
  label: string;
  target: { label: string; type: "email" | "url"; placeholder: string; help?: string };
  /** Why `target` is not one of this kind's (null: it is). */
  targetProblem: (target: string) => string | null;
};

const httpUrl = (target: string) =>
  URL.canParse(target) && /^https?:$/.test(new URL(target).protocol) ? null : "Enter an http:// or https:// URL.";

/** An ntfy topic: letters, digits, - and _, at most 64 (ntfy's own rule). */
export const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

export const CHANNEL_FORMS: Record<TChannelKind, TChannelForm> = {
  email: {
    label: "Email",
    target: { label: "Email address", type: "email", placeholder: "you@example.com" },
    targetProblem: (t) => (z.email().safeParse(t).success ? null : "Enter a valid email address."),
  },
  webhook: {
    label: "Webhook (signed JSON)",
    target: { label: "URL", type: "url", placeholder: "https://hooks.example.com/…" },
    targetProblem: httpUrl,
  },
  slack: {
    label: "Slack incoming webhook",
    target: { label: "URL", type: "url", placeholder: "https://hooks.slack.com/services/…" },
    targetProblem: httpUrl,
  },
  discord: {
    label: "Discord webhook",
    target: { label: "URL", type: "url", placeholder: "https://discord.com/api/webhooks/…" },
    targetProblem: httpUrl,
  },
  ntfy: {
    label: "ntfy push (phone or desktop)",
    target: {
      label: "Topic URL",
      type: "url",
      placeholder: "https://ntfy.sh/your-secret-topic",
      help: "The server and topic your ntfy app subscribes to; anyone who knows a public topic can read it, so pick a hard-to-guess name. A protected topic: put its access token before the host, as https://:tk_…@ntfy.example.com/topic.",
    },
    targetProblem: (t) => {
      const url = httpUrl(t);
      if (url) return url;
      const topic = new URL(t).pathname.split("/").filter(Boolean).pop() ?? "";
      return NTFY_TOPIC.test(topic)
        ? null
        : "End the URL with the topic: letters, digits, - and _ (e.g. https://ntfy.sh/acme-alerts).";
    },
  },
};
