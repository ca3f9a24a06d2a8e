import { capabilityConfigFromEnv, type TFetchConfig } from "../capabilities";
import { getEnv, type TEnv } from "../env";

/** SMTP as nodemailer takes it: a URL, or host/port/secure/auth. */
export type TSmtpConfig =
  | { url: string }
  | { host: string; port: number; secure: boolean; user?: string; password?: string };

/** Everything delivery needs from the outside world, passed explicitly so tests run their own receivers. */
export type TNotifyConfig = {
  /** The public URL links point at (APP_URL; http://localhost:PORT when unset). */
  appUrl: string;
  smtp: TSmtpConfig | null;
  from: string | null;
  /** The SSRF rules webhooks are sent under (the same as web.scrape's, FETCH_ALLOW_HOSTS included). */
  fetch: TFetchConfig;
  pauseAfterFailures: number;
  failingAfter: number;
  /** How long one claimed delivery may take before another worker may try it again. */
  leaseMs: number;
};

export function notifyConfigFromEnv(env: TEnv = getEnv()): TNotifyConfig {
  const smtp: TSmtpConfig | null = env.SMTP_URL
    ? { url: env.SMTP_URL }
    : env.SMTP_HOST
      ? {
          host: env.SMTP_HOST,
          port: env.SMTP_PORT,
          secure: env.SMTP_SECURE,
          ...(env.SMTP_USER ? { user: env.SMTP_USER } : {}),
          ...(env.SMTP_PASSWORD ? { password: env.SMTP_PASSWORD } : {}),
        }
      : null;
  return {
    appUrl: env.APP_URL ?? `http://localhost:${env.PORT}`,
    smtp,
    from: env.SMTP_FROM ?? null,
    fetch: { ...capabilityConfigFromEnv(env).fetch, maxRedirects: 0, timeoutMs: 10_000 },
    pauseAfterFailures: env.NOTIFY_PAUSE_AFTER_FAILURES,
    failingAfter: env.NOTIFY_FAILING_AFTER,
    leaseMs: 60_000,
  };
}
