import type { LanguageModel } from "ai";
import type { TSetPolicy } from "@/contracts/definition/set-rule-schema";
import type { TResolvedContextValue } from "../../context";
import type { TDb } from "../../db";
import type { TRecord, TTrackerDefinition } from "../definition";
import { addUsage, type TModelUsage, ZERO_USAGE } from "../fill";
import type { TContextRetriever } from "../judge";
import { judgeAll } from "../refresh/decide-change";
import {
  applySetDiff,
  applySetRulesToMembers,
  buildRollUp,
  diffSet,
  inKeyOrder,
  inSourceOrder,
  itemName,
  judgeMembers,
  membersMovedByRules,
  memberValues,
  readMembers,
  type TPrevEntity,
  type TSetRollUp,
} from "../set";
import { parseReplayBasis, storedMemberJudgement, storedVerdict } from "./replay-basis";
import { membersOfSetCapture } from "./set-capture-members";

export type TSetReplayStep = {
  /** The roll-up the refresh would write for this read (the baseline on the first one), or null. */
  entry: TSetRollUp["entry"];
  modelCalls: number;
  usage: TModelUsage;
  /** Members' fields left to the agent that nobody asked, as "<member> · <field>". */
  wouldAsk: string[];
  /** Verdicts taken from what the run stored. */
  reused: number;
  /** Model calls a full replay would still need (the refresh asks once per changed member). */
  modelCallsNeeded: number;
};

/**
 * Replay of a set (docs/replay.md, docs/sets.md): the members' states are kept in memory from one capture to the next,
 * and each read is decided by the refresh's own pure functions — readMembers, diffSet under the policy's missingAfter
 * and cap, judgeMembers with the definition's rules, buildRollUp (judgeSet, the lines and their reasons, the summary)
 * — so replaying the locked definition writes, in memory, the roll-ups the refresh wrote. A member's field no rule
 * decides takes the verdict its run stored for the same delta and rule, else asks within the budget, else is "would
 * ask the agent". Returns one step per capture, null for a capture that holds no set.
 */
export function createSetReplay(
  db: TDb,
  ctx: {
    def: TTrackerDefinition & { set: TSetPolicy };
    decision: string;
    version: number;
    owner: { userId: string; trackerId: string };
    judgeKeys: Record<string, string>;
    model: LanguageModel | null;
    retrieve: TContextRetriever;
    beforeModelCall: () => Promise<void>;
    bound: Record<string, TResolvedContextValue | null>;
  },
) {
  const { def } = ctx;
  let members = new Map<string, TPrevEntity>();
  const accepted = new Map<string, TRecord>();
  let walked = false;

  return async function step(input: {
    document: unknown;
    basis: unknown;
    at: Date;
    /** Whether a model call may be made now, given the calls this step made so far (the budget). */
    mayAsk: (spentInStep: number) => boolean;
  }): Promise<TSetReplayStep | null> {
    const sorted = membersOfSetCapture(input.document);
    if (!sorted) return null;
    const basis = parseReplayBasis(input.basis);
    const { records, current } = await readMembers(def, inSourceOrder(sorted, basis?.set?.order));
    const previous = inKeyOrder(members);
    const diff = diffSet(previous, current, def.set);

    const out: TSetReplayStep = {
      entry: null,
      modelCalls: 0,
      usage: ZERO_USAGE,
      wouldAsk: [],
      reused: 0,
      modelCallsNeeded: 0,
    };
    const ownJudgement = await judgeMembers({
      def,
      changed: diff.changed,
      before: (key) => accepted.get(key) ?? {},
      after: (key) => records.get(key) ?? {},
      judge: async (item, deltas) => {
        const stored = storedMemberJudgement(basis, item.key);
        const result = await judgeAll(db, def, deltas, {
          decision: ctx.decision,
          owner: ctx.owner,
          version: ctx.version,
          model: ctx.model,
          retrieve: ctx.retrieve,
          beforeModelCall: ctx.beforeModelCall,
          bound: ctx.bound,
          reuse: (field, delta) => {
            const verdict = storedVerdict(stored, ctx.judgeKeys, field, delta);
            if (verdict) out.reused++;
            return verdict;
          },
          mayAsk: () => input.mayAsk(out.modelCalls),
        });
        out.modelCalls += result.modelCalls;
        out.usage = addUsage(out.usage, result.usage);
        if (result.wouldAsk.length) {
          out.modelCallsNeeded++;
          const name = itemName(item.key, item.values);
          out.wouldAsk.push(...result.wouldAsk.map((field) => `${name} · ${field}`));
        }
        return result.byField;
      },
    });
    // As the refresh does (refresh-set.ts): the set's drop and rise rules over the members' own verdicts.
    const judged = applySetRulesToMembers(def, ownJudgement, membersMovedByRules(diff, def.set));
    const rollUp = buildRollUp({
      def,
      diff,
      first: !walked,
      before: [...previous.values()].filter((m) => m.goneAt === null).length,
      records,
      material: judged.material,
      recorded: judged.recorded,
    });
    out.entry = rollUp.entry;

    // The state the refresh writes: missing counts and gone members, and the accepted record of every member read anew.
    members = applySetDiff(previous, diff, input.at.toISOString());
    for (const item of [...diff.appeared, ...diff.reappeared, ...diff.rehashed])
      accepted.set(item.key, records.get(item.key) ?? {});
    // A changed member keeps its accepted record (noise keeps a numeric field's old value), as the refresh stores it.
    for (const member of judged.members) {
      accepted.set(member.item.key, member.accepted);
      const kept = members.get(member.item.key);
      if (kept) members.set(member.item.key, { ...kept, values: memberValues(def, member.accepted) });
    }
    walked = true;
    return out;
  };
}
