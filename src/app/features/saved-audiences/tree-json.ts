/**
 * Audiences as JSON files: export downloads an envelope, import reads that envelope or a bare
 * filter group. Import validates with the STRICT contract schema and refuses anything it finds
 * (unfinished rules included): what it returns is always a tree the service accepts.
 */
import type { GroupNode } from "../../../contract/filter";
import { checkFilterTree } from "../../lib/filter/check";
import { emptyTree } from "../../lib/filter/tree";
import { NAME_MAX } from "./audience-names";

export const EXPORT_FORMAT = "audience-builder/filter";
export const EXPORT_VERSION = 1;
/** Larger files are refused before they are read (a filter of 10,000-value lists is well below). */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

export interface ExportEnvelope {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  name: string | null;
  filter: GroupNode;
}

export function exportEnvelope(tree: GroupNode, name?: string | null): ExportEnvelope {
  const trimmed = name?.trim();
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, name: trimmed ? trimmed : null, filter: tree };
}

/** `Directors in Germany (2)` -> `directors-in-germany-2.json`. */
export function exportFileName(name?: string | null): string {
  const slug = (name ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return `${slug || "audience"}.json`;
}

/**
 * Downloads the tree as a `.json` file (a Blob behind an object URL, clicked through a temporary
 * link). Returns the file name.
 */
export function exportTreeJson(tree: GroupNode, name?: string | null): string {
  const fileName = exportFileName(name);
  const text = `${JSON.stringify(exportEnvelope(tree, name), null, 2)}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.rel = "noopener";
  link.style.display = "none";
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Some browsers start the download after the click returns: keep the URL a moment.
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  }
  return fileName;
}

export type ImportResult = { tree: GroupNode; name?: string } | { errors: string[] };

const NOT_AN_AUDIENCE =
  'This is not an audience: expected an Audience Builder file ({ "format": "audience-builder/filter", ... }) or a filter group ({ "type": "group", ... }).';

/**
 * Reads an exported envelope or a bare filter group. Every problem comes back as a readable line
 * with where it is in words, e.g. `rule 3, its value: Enter a whole number`.
 */
export function importTreeJson(text: string): ImportResult {
  if (text.trim() === "")
    return { errors: ["Nothing to import: choose a .json file or paste its contents."] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { errors: [`This is not valid JSON (${reason}).`] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { errors: [NOT_AN_AUDIENCE] };
  const record = value as Record<string, unknown>;

  if (!Object.hasOwn(record, "format")) {
    if (!Object.hasOwn(record, "type")) return { errors: [NOT_AN_AUDIENCE] };
    return strictTree(record);
  }

  const errors: string[] = [];
  if (record.format !== EXPORT_FORMAT)
    return { errors: [`format: Expected "${EXPORT_FORMAT}" (this is not an Audience Builder file).`] };
  if (
    typeof record.version === "number" &&
    Number.isInteger(record.version) &&
    record.version > EXPORT_VERSION
  )
    errors.push(
      `version: This file was made by a newer Audience Builder (format version ${record.version}); this one reads version ${EXPORT_VERSION}.`,
    );
  else if (record.version !== EXPORT_VERSION) errors.push(`version: Expected ${EXPORT_VERSION}.`);
  let name: string | undefined;
  if (typeof record.name === "string") name = record.name.trim().slice(0, NAME_MAX).trim() || undefined;
  else if (record.name !== undefined && record.name !== null) errors.push("name: Enter text");
  if (!Object.hasOwn(record, "filter")) errors.push("filter: Required, but missing");
  if (errors.length > 0) return { errors };

  // A null filter means the whole dataset, as in the service's requests.
  const filter = record.filter === null ? emptyTree() : record.filter;
  const checked = strictTree(filter);
  if ("errors" in checked) return checked;
  return name === undefined ? checked : { ...checked, name };
}

function strictTree(value: unknown): { tree: GroupNode } | { errors: string[] } {
  const checked = checkFilterTree(value);
  if ("errors" in checked) return checked;
  if (checked.unfinished.length > 0) return { errors: checked.unfinished };
  return { tree: checked.tree };
}
