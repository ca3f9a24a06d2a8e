/**
 * The per-field messages of a failed tRPC call (`error.data.fieldErrors`, set in one place by
 * server/api/error-formatter.ts), for any form to show next to its fields. Empty when there are none.
 */
export function fieldErrorsOf(
  error: { data?: { fieldErrors?: Record<string, string> } | null } | null | undefined,
): Record<string, string> {
  return error?.data?.fieldErrors ?? {};
}
