import type { Page } from "@playwright/test";

export type TTurnWatch = {
  /** How many times the page was checked while the turn ran. */
  samples: number;
  /** Checks at which the previous reply or the draft card's fields were missing. */
  violations: { previousReply: boolean; draftFields: number; bubbles: number }[];
  /** Whether the new message was on screen before its reply was (i.e. sampling covered the turn). */
  sawTurnInFlight: boolean;
  /** Every distinct text the newest assistant bubble had while the turn ran, in order. */
  replyTexts: string[];
};

/**
 * Installs a sampler in the page before a turn: on every DOM mutation (a MutationObserver, which sees
 * each React commit, even ones never painted) and on every animation frame it checks that the previous
 * reply is still in the chat and that the draft card still lists fields. Call the returned `stop`
 * once the turn is over and the network is idle, to read what it saw.
 */
export async function watchTurn(page: Page, input: { previousReply: string; message: string }) {
  await page.evaluate(({ previousReply, message }) => {
    const state = { samples: 0, violations: [], sawTurnInFlight: false, replyTexts: [] } as TTurnWatch;
    const sample = () => {
      state.samples++;
      const bubbles = [...document.querySelectorAll('[data-testid="chat-message"]')];
      const texts = bubbles.map((b) => b.textContent ?? "");
      const draftFields = document.querySelectorAll('[data-testid="draft-card"] [data-testid="draft-field"]').length;
      const previous = texts.includes(previousReply);
      if (!previous || draftFields === 0)
        state.violations.push({ previousReply: previous, draftFields, bubbles: texts.length });
      const last = bubbles.at(-1);
      if (last?.getAttribute("data-role") === "user" && last.textContent === message) state.sawTurnInFlight = true;
      const reply = bubbles.findLast((b) => b.getAttribute("data-role") === "assistant")?.textContent ?? "";
      if (reply !== previousReply && state.replyTexts.at(-1) !== reply) state.replyTexts.push(reply);
    };
    const observer = new MutationObserver(sample);
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    let frame = requestAnimationFrame(function tick() {
      sample();
      frame = requestAnimationFrame(tick);
    });
    (window as unknown as { __turnWatch: unknown }).__turnWatch = {
      state,
      stop: () => {
        observer.disconnect();
        cancelAnimationFrame(frame);
        return state;
      },
    };
  }, input);
  return {
    stop: () =>
      page.evaluate(() => (window as unknown as { __turnWatch: { stop: () => TTurnWatch } }).__turnWatch.stop()),
  };
}

/** The text of the newest assistant bubble. */
export function lastReply(page: Page): Promise<string> {
  return page
    .locator('[data-testid="chat-message"][data-role="assistant"]')
    .last()
    .evaluate((e) => e.textContent ?? "");
}
