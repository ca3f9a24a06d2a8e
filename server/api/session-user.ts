/**
 * Who is calling: re-exported from server/auth so route handlers, the tRPC context and server components keep
 * one entry point (`resolveSessionUser(db, headers)` → the signed-in user, or null).
 */
export { resolveSessionUser, type TSessionUser } from "@/server/auth/session-user";
