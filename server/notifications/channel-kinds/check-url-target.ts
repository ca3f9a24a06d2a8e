import { assertPublicUrl } from "../../capabilities";
import { AppError } from "../../errors";
import type { TNotifyConfig } from "../config";

/** A URL target must pass the SSRF rules now (the send re-checks every connection), refused in words. */
export async function checkUrlTarget(config: TNotifyConfig, target: string): Promise<void> {
  try {
    await assertPublicUrl(target, config.fetch);
  } catch (error) {
    if (error instanceof AppError) {
      const message = error.message.replace(/^Cannot watch/, "Cannot send to");
      throw new AppError("BAD_REQUEST", message, { fieldErrors: { target: message } });
    }
    throw error;
  }
}

/** Slack, Discord and ntfy put their secret in the path: show only the origin and the start of it. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 16 ? `${u.pathname.slice(0, 12)}…` : u.pathname;
    return `${u.origin}${path}`;
  } catch {
    return "(invalid URL)";
  }
}

/** "Webhook · hooks.example.com". */
export const hostName = (label: string, target: string) =>
  `${label} · ${URL.canParse(target) ? new URL(target).host : target}`;
