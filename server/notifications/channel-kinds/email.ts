import { AppError } from "../../errors";
import { sendEmail } from "../send-email";
import type { TChannelKindDescriptor } from "./types";

/** Email over the configured SMTP server, with one-click unsubscribe (send-email.ts). */
export const emailChannel: TChannelKindDescriptor = {
  kind: "email",
  signed: false,
  checkTarget: async (config) => {
    if (config.smtp && config.from) return;
    throw new AppError("BAD_REQUEST", "Email is not configured on this server: set SMTP_URL and SMTP_FROM.", {
      fieldErrors: { kind: "Email is not configured on this server." },
    });
  },
  defaultName: (target) => target,
  redact: (target) => target,
  send: (config, { channel, deliveryId, message, unsubscribeUrl }) =>
    sendEmail(config, { to: channel.target, deliveryId, unsubscribeUrl, message }),
};
