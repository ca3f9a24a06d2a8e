/**
 * A set member's page address (app/trackers/[id]/members/[key], docs/trackers.md "The member page"): the key is one
 * path segment, percent-encoded, since keys are often URLs with / ? and %. The feed's set card links the same way.
 */
export const setMemberHref = (trackerId: string, key: string) =>
  `/trackers/${encodeURIComponent(trackerId)}/members/${encodeURIComponent(key)}`;

/**
 * The member's key from the page component's `[key]` param. Next 16 hands page and layout components their dynamic
 * params re-encoded (encodeURIComponent of the decoded segment, next/dist/shared/lib/router/utils/get-dynamic-param)
 * while generateMetadata gets them decoded, so the page decodes exactly once; tests/integration/set-member-page.test.ts
 * pins that behaviour. Text that is not valid percent-encoding is taken as it is.
 */
export function memberKeyFromPageParam(param: string): string {
  try {
    return decodeURIComponent(param);
  } catch {
    return param;
  }
}
