/**
 * What every surface says while the database cannot be reached (server/errors.ts `databaseUnavailableError`):
 * the message, how long a client should wait before trying again (the `Retry-After` header), and the digest Next
 * keeps on a page's error so the error boundaries (app/error.tsx, app/global-error.tsx) can say the same.
 */
export const DATABASE_UNAVAILABLE_MESSAGE = "The database cannot be reached right now; try again shortly.";
export const DATABASE_RETRY_AFTER_SECONDS = 5;
export const DATABASE_UNAVAILABLE_DIGEST = "BELLWETHER_DATABASE_UNAVAILABLE";
