import { escapeUTF8 } from "entities";
import { fieldLabel, formatChange, type TValueFormat } from "@/contracts/definition/format-value";
import type { TChangeDecisions, TChangeDelta } from "@/contracts/timeline";

/**
 * What a notice says (docs/notifications.md, "The message"): the decision, each field from → to with its unit, the rule or the
 * agent's reason, the AI slot text when there is one, and a link to the timeline entry. Pure: the same text for
 * email, webhooks, Slack, Discord and the inbox. Model and page text stay plain text: escaped in HTML.
 */

export type TNoticeField = { field: string; label: string; change: string; reason: string | null };

export type TNoticeChange = {
  changeId: string;
  trackerId: string;
  decision: string;
  materiality: "material" | "notable";
  capturedAt: Date;
  url: string;
  fields: TNoticeField[];
  /** The feed enhancement's "why" for this change, when the model wrote one (never in rules mode). */
  insight: string | null;
};

/** A notice without a change (a test, a failing tracker, a paused channel). */
export type TPlainNotice = { title: string; text: string; url: string | null };

export type TMessage = {
  type: "change" | "digest" | "notice";
  subject: string;
  text: string;
  html: string;
  url: string | null;
  changes: TNoticeChange[];
};

export type TChangeSource = {
  id: string;
  trackerId: string;
  materiality: string;
  capturedAt: Date;
  delta: TChangeDelta;
  decisions: TChangeDecisions;
};

/** One change as a notice: fields formatted with the definition's units and currencies. */
export function toNoticeChange(
  change: TChangeSource,
  tracker: { decision: string },
  options: { formats: ReadonlyMap<string, TValueFormat>; appUrl: string; insight: string | null },
): TNoticeChange {
  const fields = Object.entries(change.delta).map(([field, d]): TNoticeField => {
    const decision = change.decisions[field];
    const by = decision?.decidedBy === "agent" ? "Agent" : "Rule";
    return {
      field,
      label: fieldLabel(field),
      change: formatChange(d.from, d.to, options.formats.get(field)),
      reason: decision?.reason ? `${by}: ${decision.reason}` : null,
    };
  });
  return {
    changeId: change.id,
    trackerId: change.trackerId,
    decision: tracker.decision,
    materiality: change.materiality === "material" ? "material" : "notable",
    capturedAt: change.capturedAt,
    url: timelineUrl(options.appUrl, change.trackerId, change.id),
    fields,
    insight: options.insight,
  };
}

export function timelineUrl(appUrl: string, trackerId: string, changeId: string): string {
  return `${appUrl.replace(/\/+$/, "")}/trackers/${encodeURIComponent(trackerId)}#change-${encodeURIComponent(changeId)}`;
}

function changeText(c: TNoticeChange): string {
  const lines = [`${c.decision} — ${c.materiality} change`];
  for (const f of c.fields) {
    lines.push(`  ${f.label}: ${f.change}`);
    if (f.reason) lines.push(`    ${f.reason}`);
  }
  if (c.insight) lines.push(`  Why it matters: ${c.insight}`);
  lines.push(`  ${c.url}`);
  return lines.join("\n");
}

function changeHtml(c: TNoticeChange): string {
  const e = escapeUTF8;
  const rows = c.fields
    .map(
      (f) =>
        `<li><strong>${e(f.label)}</strong>: ${e(f.change)}${f.reason ? `<br><small>${e(f.reason)}</small>` : ""}</li>`,
    )
    .join("");
  const insight = c.insight ? `<p>Why it matters: ${e(c.insight)}</p>` : "";
  return `<h2>${e(c.decision)}</h2><p>${e(c.materiality)} change</p><ul>${rows}</ul>${insight}<p><a href="${e(c.url)}">Open the timeline entry</a></p>`;
}

/** One change → one message; several (a digest, or what quiet hours held back) → one grouped message. */
export function renderChanges(changes: TNoticeChange[], options: { grouped: boolean }): TMessage {
  const first = changes[0];
  if (!first) throw new Error("renderChanges needs at least one change");
  if (!options.grouped && changes.length === 1) {
    const fieldsPart = first.fields.map((f) => `${f.label} ${f.change}`).join("; ");
    return {
      type: "change",
      subject: truncate(
        `${first.materiality === "material" ? "Material" : "Notable"} change: ${first.decision} — ${fieldsPart}`,
        200,
      ),
      text: `${changeText(first)}\n`,
      html: wrapHtml(changeHtml(first)),
      url: first.url,
      changes,
    };
  }
  const trackers = new Set(changes.map((c) => c.trackerId)).size;
  const subject = `${changes.length} change${changes.length === 1 ? "" : "s"} on ${trackers} tracker${trackers === 1 ? "" : "s"}`;
  return {
    type: "digest",
    subject,
    text: `${subject}\n\n${changes.map(changeText).join("\n\n")}\n`,
    html: wrapHtml(`<h1>${escapeUTF8(subject)}</h1>${changes.map(changeHtml).join("<hr>")}`),
    url: null,
    changes,
  };
}

export function renderPlain(notice: TPlainNotice): TMessage {
  const e = escapeUTF8;
  const link = notice.url ? `<p><a href="${e(notice.url)}">${e(notice.url)}</a></p>` : "";
  return {
    type: "notice",
    subject: truncate(notice.title, 200),
    text: `${notice.text}${notice.url ? `\n\n${notice.url}` : ""}\n`,
    html: wrapHtml(`<h2>${e(notice.title)}</h2><p>${e(notice.text)}</p>${link}`),
    url: notice.url,
    changes: [],
  };
}

function wrapHtml(body: string): string {
  return `<!doctype html><html><body style="font-family:sans-serif">${body}</body></html>`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
