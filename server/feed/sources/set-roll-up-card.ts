import type { TValueFormat } from "@/contracts/definition/format-value";
import type { TSpecNode } from "@/contracts/feed-catalog";
import { ZChangeDeltaSchema } from "@/contracts/timeline";
import { isRollUpDelta, setRollUpView, type TLoadedRollUp, type TSetRollUpView } from "../../timeline/set-roll-up-view";

/**
 * The body of a set tracker's card (docs/feed.md, "A set's card"): the roll-up's headline in plain words and the
 * members it is about, each linking to its member page, instead of the roll-up's raw lines (Appeared, Changed…).
 * The rest of the card — time, badge, "new since you last looked", slots, the earlier changes folded — is every
 * tracker card's (trackers-source.ts).
 */

/** What a set tracker's card knows beyond its changes: how members are called, and the latest run's members. */
export type TSetCardInput = {
  noun: { one: string; many: string } | null;
  /** The latest roll-up's member entries; null when they were not read (its names then come from the roll-up). */
  latest: TLoadedRollUp | null;
};

type TRollUpRow = { delta: unknown };

/**
 * A roll-up entry's view; its JSON columns are parsed here, at the boundary. Null for an entry that is not a roll-up
 * (one recorded before the definition watched a set): the card shows it as any tracker's change.
 */
export function rollUpViewOf(
  trackerId: string,
  row: TRollUpRow,
  input: { formats: ReadonlyMap<string, TValueFormat>; set: TSetCardInput; loaded: TLoadedRollUp | null },
): TSetRollUpView | null {
  const delta = ZChangeDeltaSchema.safeParse(row.delta);
  if (!delta.success || !isRollUpDelta(delta.data)) return null;
  return setRollUpView({
    trackerId,
    delta: delta.data,
    members: input.loaded?.members ?? null,
    counts: input.loaded?.counts ?? null,
    formats: input.formats,
    noun: input.set.noun,
  });
}

/** The card's rows for the latest roll-up: the headline, then the members list with "+N more". */
export function setCardRows(view: TSetRollUpView, decision: string): TSpecNode[] {
  const rows: TSpecNode[] = [{ key: "headline", type: "Text", props: { text: view.headline } }];
  if (view.members.length > 0) {
    rows.push({
      key: "members",
      type: "MemberList",
      props: {
        label:
          `${view.noun.many.charAt(0).toUpperCase()}${view.noun.many.slice(1)} in the latest change of “${decision}”`.slice(
            0,
            300,
          ),
        items: view.members.map((m) => ({ kind: m.kind, name: m.name, href: m.href, detail: m.detail })),
        more: view.more > 0 ? view.more : null,
        moreHref: view.more > 0 ? view.membersHref : null,
      },
    });
  }
  return rows;
}

/** What the model reads of the roll-up (the card's `data`): the headline and the members by name, no links. */
export function setCardData(view: TSetRollUpView): Record<string, unknown> {
  return {
    headline: view.headline,
    counts: view.counts,
    members: view.members.map((m) => ({ kind: m.kind, name: m.name, detail: m.detail })),
    more: view.more,
  };
}
