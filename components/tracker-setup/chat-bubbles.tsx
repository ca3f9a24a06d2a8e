import type { TBubble } from "./setup-view";

/** The conversation as bubbles; model and page text render as text, never HTML. */
export function ChatBubbles({ bubbles }: { bubbles: TBubble[] }) {
  return bubbles.map((b) => <ChatBubble key={b.key} bubble={b} />);
}

function ChatBubble({ bubble }: { bubble: TBubble }) {
  const tone =
    bubble.role === "user"
      ? "self-end bg-stone-900 text-white dark:bg-stone-100 dark:text-stone-900"
      : bubble.kind === "error"
        ? "border border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        : "border border-stone-200 bg-white dark:border-stone-800 dark:bg-stone-900";
  return (
    <li
      data-testid="chat-message"
      data-role={bubble.role}
      data-kind={bubble.kind}
      className={`max-w-[90%] whitespace-pre-wrap rounded-lg px-3 py-2 text-sm ${tone}`}
    >
      {bubble.text}
    </li>
  );
}
