import type { InputHTMLAttributes, ReactNode } from "react";

export const inputClass =
  "w-full rounded-md border border-stone-300 bg-white px-3 py-2 text-base sm:text-sm aria-[invalid=true]:border-red-600 dark:border-stone-700 dark:bg-stone-950 dark:aria-[invalid=true]:border-red-400";

/**
 * A labelled input with its hint and its error right under it: the error marks the input invalid and is read with
 * it (aria-describedby), so a person using a screen reader hears which field is wrong and why.
 */
export function FormField({
  id,
  label,
  hint,
  error,
  ...input
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
} & InputHTMLAttributes<HTMLInputElement>) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        className={inputClass}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...input}
      />
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-stone-600 dark:text-stone-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-700 dark:text-red-300" data-field-error>
          {error}
        </p>
      ) : null}
    </div>
  );
}
