import { formatFileSize } from "@/contracts/context-files";
import { contextLimitsFromEnv, saveContextFile, type TContextLimits } from "../context";
import { getDb, type TDb } from "../db";
import { AppError, describeError, toHttpError } from "../errors";
import { logger } from "../logger";
import { readBodyBytes } from "./read-json-body";
import { pickRequestId } from "./request-id";
import { requireRouteUser } from "./route-user";

/** Room for the multipart envelope (boundaries, part headers, a replace id) around the file itself. */
const MULTIPART_OVERHEAD_BYTES = 64_000;

export type TContextUploadDeps = { db?: TDb; limits?: TContextLimits };

/**
 * POST /api/trackers/[trackerId]/context-files: multipart form with `file` (and `replaceFileId` to replace one).
 * Authenticated like every route (the session cookie); the body is read under the file-size limit plus the
 * envelope, so an oversized upload is a 413 before it is held whole. Answers `{ file, replaced }` (201 / 200) or
 * `{ error: { code, message } }` with the status from the one error table.
 */
export async function handleContextUploadRequest(
  request: Request,
  trackerId: string,
  deps: TContextUploadDeps = {},
): Promise<Response> {
  const log = logger.child({ requestId: pickRequestId(request.headers), route: "context-upload" });
  try {
    const db = deps.db ?? (await getDb());
    const user = await requireRouteUser(db, request);
    const limits = deps.limits ?? contextLimitsFromEnv();
    const type = request.headers.get("content-type") ?? "";
    if (!type.toLowerCase().startsWith("multipart/form-data")) {
      throw new AppError("BAD_REQUEST", "Send the file as multipart/form-data with a `file` field.");
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBodyBytes(request, limits.maxBytes + MULTIPART_OVERHEAD_BYTES);
    } catch (error) {
      if (error instanceof AppError && error.code === "PAYLOAD_TOO_LARGE") {
        throw new AppError("PAYLOAD_TOO_LARGE", `Files can be at most ${formatFileSize(limits.maxBytes)}.`, {
          details: { maxBytes: limits.maxBytes },
        });
      }
      throw error;
    }
    let form: FormData;
    try {
      form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData();
    } catch {
      throw new AppError("BAD_REQUEST", "The upload is not a valid multipart form.");
    }
    const file = form.get("file");
    if (!(file instanceof File)) throw new AppError("BAD_REQUEST", "Choose a file to attach (form field `file`).");
    const replace = form.get("replaceFileId");
    const result = await saveContextFile(db, {
      userId: user.id,
      trackerId,
      name: file.name,
      mediaType: file.type,
      bytes: new Uint8Array(await file.arrayBuffer()),
      replaceFileId: typeof replace === "string" && replace ? replace : null,
      limits,
    });
    return Response.json(result, { status: result.replaced ? 200 : 201, headers: { "cache-control": "no-store" } });
  } catch (error) {
    const { status, body, headers } = toHttpError(error);
    if (status >= 500) log.error("context upload failed", { error: describeError(error) });
    return Response.json(body, { status, headers });
  }
}
