import { getDb } from "../db";
import { describeError, toHttpError } from "../errors";
import { logger } from "../logger";
import { notifyConfigFromEnv, renderAtomFeed, unsubscribeByToken } from "../notifications";

/**
 * The two token-authenticated notification routes (no session): the secret Atom feed URL and the email
 * List-Unsubscribe link. A wrong or revoked token is a 404 either way.
 */

const notFound = () =>
  new Response("Not found", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });

/** A failure as every route answers it: the error table's status, a database outage as 503 with Retry-After. */
async function answering(route: string, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    const { status, body, headers } = toHttpError(error);
    if (status >= 500 && status !== 503) logger.error(`${route} failed`, { error: describeError(error) });
    return Response.json(body, { status, headers: { ...headers, "cache-control": "no-store" } });
  }
}

export function handleAtomFeed(token: string): Promise<Response> {
  return answering("atom feed", () => atomFeed(token));
}

async function atomFeed(token: string): Promise<Response> {
  const xml = await renderAtomFeed(await getDb(), { token, appUrl: notifyConfigFromEnv().appUrl });
  if (xml === null) return notFound();
  return new Response(xml, {
    headers: { "content-type": "application/atom+xml; charset=utf-8", "cache-control": "private, max-age=60" },
  });
}

const page = (body: string) =>
  new Response(
    `<!doctype html><html><head><meta charset="utf-8"><title>Bellwether</title></head><body style="font-family:sans-serif">${body}</body></html>`,
    {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    },
  );

/** GET shows a button (link scanners must not unsubscribe anyone); POST (one-click, RFC 8058) pauses the channel. */
export function handleUnsubscribe(request: Request, token: string): Promise<Response> {
  return answering("unsubscribe", () => unsubscribe(request, token));
}

async function unsubscribe(request: Request, token: string): Promise<Response> {
  if (request.method === "GET") {
    return page(
      `<form method="post"><p>Stop notifications to this address?</p><button type="submit">Unsubscribe</button></form>`,
    );
  }
  const ok = await unsubscribeByToken(await getDb(), { token });
  if (!ok) return notFound();
  return page("<p>Unsubscribed. You can resume these notifications in Bellwether's Settings.</p>");
}
