/** The field editor's inputs and labels (field-editor.tsx, rule-editor.tsx). */
export const fieldInput =
  "w-full min-w-0 rounded border border-stone-300 bg-transparent px-2 py-1 text-sm dark:border-stone-700 dark:bg-stone-950";
export const fieldLabel = "block text-xs font-medium text-stone-600 dark:text-stone-400";
