import { safeFetch } from "../../capabilities";
import type { TMessage } from "../render-message";
import { checkUrlTarget, hostName, redactUrl } from "./check-url-target";
import type { TChannelKindDescriptor } from "./types";

/**
 * ntfy (https://ntfy.sh or a self-hosted server): a push to the phone or desktop apps subscribed to a topic. The
 * target is the topic's URL; the message is published as JSON to the server's root (ntfy's "publish as JSON"), so
 * titles in any language need no header encoding. The delivery id rides as a tag (a resend is recognisable), the link opens the
 * change. ntfy caps a message at 4,096 bytes: longer text is cut. A protected topic's access token rides in the URL's
 * user part and is sent as a header (ntfyCredentials).
 */

const MAX_MESSAGE_BYTES = 4_000;

function cut(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  let out = text.slice(0, bytes);
  while (Buffer.byteLength(out) > bytes - 3) out = out.slice(0, -1);
  return `${out}…`;
}

/** `https://ntfy.sh/acme` → the server root `https://ntfy.sh/` and the topic `acme` (a base path is kept). */
export function ntfyTopic(target: string): { root: string; topic: string } {
  const url = new URL(target);
  const parts = url.pathname.split("/").filter(Boolean);
  const topic = parts.pop() ?? "";
  return { root: `${url.origin}/${parts.map((p) => `${p}/`).join("")}`, topic };
}

/**
 * A protected topic's credentials, given in the topic URL's user part (`https://:tk_…@ntfy.example.com/alerts` for an
 * access token, `https://user:pass@…` for a password): the Authorization header ntfy expects, and the URL without
 * them — which is what is checked, fetched and shown, so the token never reaches a log line or the page.
 */
export function ntfyCredentials(target: string): { url: string; authorization: string | null } {
  const url = new URL(target);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const token = !user ? password : !password ? user : null;
  const authorization = token
    ? `Bearer ${token}`
    : user && password
      ? `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
      : null;
  return { url: url.href, authorization };
}

export function ntfyBody(target: string, deliveryId: string, message: TMessage): string {
  return JSON.stringify({
    topic: ntfyTopic(target).topic,
    title: cut(message.subject, 250),
    message: cut(message.text, MAX_MESSAGE_BYTES),
    ...(message.url ? { click: message.url } : {}),
    tags: ["bell", `delivery-${deliveryId}`],
  });
}

export const ntfyChannel: TChannelKindDescriptor = {
  kind: "ntfy",
  signed: false,
  checkTarget: (config, target) => checkUrlTarget(config, ntfyCredentials(target).url),
  defaultName: (target) => hostName("ntfy", ntfyCredentials(target).url),
  redact: (target) => redactUrl(ntfyCredentials(target).url),
  send: async (config, { channel, deliveryId, message }) => {
    const { url, authorization } = ntfyCredentials(channel.target);
    const body = ntfyBody(url, deliveryId, message);
    await safeFetch(ntfyTopic(url).root, config.fetch, {
      post: {
        body,
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
      },
      accept: "*/*",
    });
  },
};
