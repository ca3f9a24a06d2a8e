import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import type { TNotifyConfig } from "@/server/notifications";
import { localCapabilityConfig } from "./trackers";

/** A real local SMTP server (smtp-server) that keeps every message it accepts, parsed by mailparser. */
export async function startSmtpReceiver(): Promise<{
  url: string;
  messages: ParsedMail[];
  close: () => Promise<void>;
}> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TReceived = { headers: http.IncomingHttpHeaders; body: string; status: number; path: string };

/**
 * A local webhook receiver: records every request and answers with `answer()` (200 unless told otherwise), so a
 * test can fail the first attempts. `accepted` are the requests it answered 2xx.
 */
export async function startWebhookReceiver(): Promise<{
  url: string;
  received: TReceived[];
  accepted: () => TReceived[];
  answer: (fn: (n: number) => number | "hang") => void;
  close: () => Promise<void>;
}> {
  const received: TReceived[] = [];
  let decide: (n: number) => number | "hang" = () => 200;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const verdict = decide(received.length);
      const entry: TReceived = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        status: verdict === "hang" ? 0 : verdict,
        path: req.url ?? "/",
      };
      received.push(entry);
      if (verdict === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(verdict, { "content-type": "text/plain" }).end(verdict < 300 ? "ok" : "nope");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    accepted: () => received.filter((r) => r.status >= 200 && r.status < 300),
    answer: (fn) => {
      decide = fn;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a webhook request carries a valid signature under `secret` (docs/notifications.md, "Verifying a webhook"). */
export function isSignedBy(secret: string, request: Pick<TReceived, "headers" | "body">): boolean {
  const timestamp = String(request.headers["x-bellwether-timestamp"]);
  const given = Buffer.from(String(request.headers["x-bellwether-signature"]));
  const expected = Buffer.from(
    `sha256=${createHmac("sha256", secret).update(`${timestamp}.${request.body}`).digest("hex")}`,
  );
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The change ids a webhook delivery carries (its body's `changes`). */
export function changeIdsIn(request: Pick<TReceived, "body">): string[] {
  return (JSON.parse(request.body) as { changes: { changeId: string }[] }).changes.map((c) => c.changeId);
}

/**
 * The notification config tests send with: the local receiver allowed past the SSRF rules, no redirects, no email
 * unless `overrides` give an SMTP server; pause after 3 failures, "failing" after 3.
 */
export function localNotifyConfig(receiverUrl: string, overrides: Partial<TNotifyConfig> = {}): TNotifyConfig {
  return {
    appUrl: "https://bell.example.com",
    smtp: null,
    from: null,
    fetch: { ...localCapabilityConfig([receiverUrl], { timeoutMs: 3000 }).fetch, maxRedirects: 0 },
    pauseAfterFailures: 3,
    failingAfter: 3,
    leaseMs: 60_000,
    ...overrides,
  };
}
