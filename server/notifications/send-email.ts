import nodemailer, { type Transporter } from "nodemailer";
import type { TNotifyConfig, TSmtpConfig } from "./config";
import type { TMessage } from "./render-message";

const transports = new Map<string, Transporter>();

function transportFor(smtp: TSmtpConfig): Transporter {
  const key = JSON.stringify(smtp);
  let transport = transports.get(key);
  if (!transport) {
    transport = nodemailer.createTransport(
      "url" in smtp
        ? smtp.url
        : {
            host: smtp.host,
            port: smtp.port,
            secure: smtp.secure,
            ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? "" } } : {}),
          },
    );
    transports.set(key, transport);
  }
  return transport;
}

/**
 * One email: plain text and HTML, a Message-ID made from the delivery id (so a resend after a crash between
 * sending and recording is recognisable as the same message) and one-click List-Unsubscribe (RFC 8058).
 */
export async function sendEmail(
  config: TNotifyConfig,
  input: { to: string; deliveryId: string; unsubscribeUrl: string; message: TMessage },
): Promise<void> {
  if (!config.smtp || !config.from) throw new Error("Email is not configured on this server (SMTP_URL and SMTP_FROM).");
  const host = new URL(config.appUrl).hostname || "bellwether.local";
  await transportFor(config.smtp).sendMail({
    from: config.from,
    to: input.to,
    subject: input.message.subject,
    text: input.message.text,
    html: input.message.html,
    messageId: `<${input.deliveryId}@${host}>`,
    // RFC 8058: with this header a mail client may unsubscribe with one POST to the List-Unsubscribe URL (which
    // answers POST as well as GET), without opening a page.
    headers: { "X-Bellwether-Delivery": input.deliveryId, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    list: { unsubscribe: { url: input.unsubscribeUrl, comment: "Stop these notifications" } },
  });
}
