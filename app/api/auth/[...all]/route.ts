import { toNextJsHandler } from "better-auth/next-js";
import { handleAuthRequest } from "@/server/api/auth-route";

// The database is opened on first request, never at build time.
export const dynamic = "force-dynamic";

/** better-auth's handler: sign-in, sign-out, change password, get-session, and the account-creation endpoints. */
export const { GET, POST } = toNextJsHandler(handleAuthRequest);
