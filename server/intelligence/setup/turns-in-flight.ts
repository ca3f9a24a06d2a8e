/**
 * The conversations with a turn running in this process: one turn at a time per conversation (a reply builds on the
 * stored transcript), and the setup card's own draft writes wait for it (apply-context-files.ts).
 */
const running = new Set<string>();

/** Claims the conversation for one turn; false when a turn of it is already running. */
export function claimSetupTurn(sessionId: string): boolean {
  if (running.has(sessionId)) return false;
  running.add(sessionId);
  return true;
}

export function releaseSetupTurn(sessionId: string): void {
  running.delete(sessionId);
}

export function isSetupTurnRunning(sessionId: string): boolean {
  return running.has(sessionId);
}
