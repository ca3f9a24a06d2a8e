import type { InputHTMLAttributes, ReactNode } from "react";

const inputClass =
  "mt-1 block w-full rounded-md border border-stone-300 bg-white px-3 py-2 text-base aria-[invalid=true]:border-red-600 dark:border-stone-700 dark:bg-stone-950";

/** A labelled input; `hint` sits under it and is read with it. */
export function Field({
  label,
  hint,
  id,
  ...input
}: { label: string; hint?: ReactNode; id: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} className={inputClass} {...input} />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-stone-600 dark:text-stone-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** The form's one error sentence, announced when it appears. */
export function FormError({ message, id }: { message: string | null; id: string }) {
  return (
    <p id={id} role="alert" aria-live="assertive" className="min-h-5 text-sm text-red-700 dark:text-red-400">
      {message}
    </p>
  );
}

/** The centred card auth pages sit in (full width at 390 px). */
export function AuthCard({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  return (
    <section className="mx-auto w-full max-w-md rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {intro ? <div className="mt-2 text-sm text-stone-600 dark:text-stone-400">{intro}</div> : null}
      <div className="mt-6">{children}</div>
    </section>
  );
}
