import { type TContextFileView, ZUploadContextFileResponseSchema } from "@/contracts/context-files";

/**
 * Sends one file to POST /api/trackers/[trackerId]/context-files (multipart; the route extracts and indexes it before
 * it answers). Resolves with the stored file, or throws an Error carrying the server's message.
 */
export async function uploadContextFile(
  trackerId: string,
  file: File,
  replaceFileId?: string,
): Promise<{ file: TContextFileView; replaced: boolean }> {
  const form = new FormData();
  form.set("file", file);
  if (replaceFileId) form.set("replaceFileId", replaceFileId);
  const response = await fetch(`/api/trackers/${encodeURIComponent(trackerId)}/context-files`, {
    method: "POST",
    body: form,
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
    throw new Error(typeof message === "string" ? message : `The upload failed (HTTP ${response.status}).`);
  }
  const parsed = ZUploadContextFileResponseSchema.parse(
    // Dates travel as strings in plain JSON.
    reviveDates(body),
  );
  return parsed;
}

function reviveDates(body: unknown): unknown {
  const b = body as { file?: Record<string, unknown> } | null;
  if (!b?.file) return body;
  const file = { ...b.file };
  for (const key of ["createdAt", "updatedAt", "lastCitedAt"]) {
    if (typeof file[key] === "string") file[key] = new Date(file[key] as string);
  }
  return { ...b, file };
}
