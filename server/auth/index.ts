export { getAccessState, setOpenSignUp, type TAccessState } from "./access-state";
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./account-schemas";
export { resolveAuthSecret } from "./auth-secret";
export { createMemberAccount, createOwnerAccount } from "./create-accounts";
export { AUTH_COOKIE_PREFIX, authConfigFromEnv, createAuth, getAuth, type TAuth, type TAuthConfig } from "./create-auth";
export { checkInvite, createInvite, listInvites, revokeInvite, type TInviteView, ZCreateInviteSchema } from "./invites";
export { resetPassword } from "./reset-password";
export { listUserSessions, revokeUserSession, type TSessionView } from "./sessions";
export { hasSessionCookie, resolveSessionUser, type TSessionUser } from "./session-user";
