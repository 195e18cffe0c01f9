import { ApiError, isAbortError, toApiError } from "./api-error";
import { api } from "./client";

/**
 * Files from the proxy. A plain `<a href>` cannot carry the `x-csrf: 1` header every `/api` call
 * needs, so the app fetches the file itself (through the one ky instance) and hands the browser the
 * bytes as an object URL. Failures come out as ApiError, so a screen can say what happened and
 * offer "Download again" (downloads are free; nothing is charged twice).
 */

/** Headers arrive quickly even for large files (the proxy streams); this bounds the wait for them. */
export const DOWNLOAD_TIMEOUT_MS = 60_000;

/** How long an object URL is kept after the click: the browser has started reading it by then. */
const REVOKE_AFTER_MS = 30_000;

/** Letters, digits, dot, dash, underscore and space; anything else becomes `_` (no paths, no tricks). */
export function safeFilename(name: string, fallback = "download"): string {
  const cleaned = name
    .replace(/[/\\]/g, "_")
    .replace(/[^\w.\- ]+/g, "_")
    .replace(/^[.\s]+/, "")
    .trim()
    .slice(0, 150);
  return cleaned === "" ? fallback : cleaned;
}

/**
 * The file name of a `Content-Disposition` header: `filename*=UTF-8''...` (RFC 5987) first, then
 * `filename="..."` or bare `filename=...`. Null when it names none.
 */
export function filenameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ""));
    } catch {
      // A broken escape: fall back to the plain parameter.
    }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted?.[1] !== undefined) return quoted[1].replace(/\\(.)/g, "$1");
  const bare = /filename\s*=\s*([^;]+)/i.exec(header);
  return bare?.[1] ? bare[1].trim() : null;
}

/** Hands a Blob to the browser as a download named `filename`. */
function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.rel = "noopener";
  link.hidden = true;
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoking at once can cancel the download in some browsers: wait until it has surely started.
    setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
  }
}

export interface DownloadOptions {
  /** The name used when the answer names none (e.g. `export.csv`). */
  fallbackName?: string;
  /** The name to save it under whatever the answer says (ours is more telling than the service's). */
  filename?: string;
  signal?: AbortSignal;
}

/**
 * GETs `/api/<path>` and saves the answer as a file, named by its `Content-Disposition`. Throws
 * ApiError when no file arrives (an error status, a dropped connection, a body cut short), and the
 * AbortError unchanged when `signal` aborts.
 */
export async function downloadFile(
  path: string,
  options: DownloadOptions = {},
): Promise<{ filename: string; bytes: number }> {
  const fallback = safeFilename(options.fallbackName ?? "download");
  let response: Response;
  try {
    response = await api.get(path.replace(/^\/+/, ""), {
      timeout: DOWNLOAD_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw await toApiError(error);
  }
  const cutShort = (what: string) =>
    new ApiError({
      kind: "network",
      status: 0,
      message: `The file ${what}. Download it again; it costs nothing.`,
      requestId: response.headers.get("x-request-id"),
    });
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw cutShort("stopped arriving before it was complete");
  }
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > 0 && blob.size < declared) throw cutShort("arrived incomplete");
  const named = options.filename ?? filenameFromDisposition(response.headers.get("content-disposition"));
  const filename = named ? safeFilename(named, fallback) : fallback;
  saveBlob(blob, filename);
  return { filename, bytes: blob.size };
}

/** Saves text made in the browser (a CSV of enriched rows...) as a file. */
export function saveTextFile(text: string, filename: string, type = "text/csv;charset=utf-8"): void {
  saveBlob(new Blob([text], { type }), safeFilename(filename));
}
