import type { TCapabilityConfig } from "../../../capabilities";
import type { TDb } from "../../../db";
import type { TSetupSample } from "../bind-and-sample";
import type { TSetupReply } from "../setup-reply";

/**
 * What the drafter's tools share within one chat turn (run-drafter-agent.ts): who and where, and what the turn has
 * done so far — the target chosen, the sample read, drafts refused, whether it locked. Each tool is its own file
 * and reads and writes this one object.
 */
export type TDrafterTurn = {
  db: TDb;
  userId: string;
  sessionId: string;
  /** The person's decision (their first message). */
  decision: string;
  config: TCapabilityConfig;
  reply: TSetupReply;
  /** Files attached to this setup, in the prompt as untrusted data and what bound values are checked on. */
  files: { name: string; text: string }[];
  /** The target chosen by bindCapability, read by fetchSample. */
  pending: {
    capability: string;
    capabilityInput: unknown;
    label: string;
    title?: string | undefined;
    /** The agent's reading of the decision: a set of members, or one thing (schema.ts `watch`). */
    watch?: "one" | "set" | undefined;
  } | null;
  /** Set once a sample is stored with the session. */
  bound: { label: string } | null;
  /** The sample drafts are checked against: the stored one, or the one fetched in this turn. */
  current: TSetupSample | null;
  invalidDrafts: number;
  /** The validation errors of the second refused draft: the turn stops and says them. */
  gaveUp: string[] | null;
  locked: boolean;
};
