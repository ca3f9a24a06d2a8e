/** A money value in a record: always an explicit currency, never a bare number. */
export type TMoney = { amount: number; currency: string };

/** One value in a filled record; null means "not present on the page". */
export type TRecordValue = number | string | boolean | string[] | TMoney | null;

/**
 * A filled record: one key per effective field (declared fields + notable_signals), always all of
 * them, in definition order. notable_signals is always a string[] (possibly empty).
 */
export type TRecord = Record<string, TRecordValue>;

export function isMoney(value: unknown): value is TMoney {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as TMoney).amount === "number" &&
    typeof (value as TMoney).currency === "string"
  );
}
