/**
 * The proxy writes a tag from its spend journal at the end of every export's name, so that an
 * export whose start was cut off by a crash is found again in the export list instead of being
 * bought twice. People never need to see it: `exportNameWithoutTag` takes it off for display.
 */
const NAME_MAX = 200;
const TAG_AT_END = /\s*\[ab-[0-9a-f]{16}\]$/;

export function taggedExportName(name: string | null | undefined, tag: string): string {
  const base = (name ?? "").replace(TAG_AT_END, "").trim();
  return `${base.slice(0, NAME_MAX - tag.length - 3)} [${tag}]`.trimStart();
}

export function hasExportTag(name: string | null | undefined, tag: string): boolean {
  return typeof name === "string" && name.endsWith(`[${tag}]`);
}

export function exportNameWithoutTag(name: string | null): string | null {
  if (name === null) return null;
  const bare = name.replace(TAG_AT_END, "");
  return bare === "" ? null : bare;
}

/** A download's file name as the service made it from the tagged name, with the tag taken out. */
export function fileNameWithoutTag(disposition: string): string {
  return disposition
    .replace(/[\s_\-[(]*ab-[0-9a-f]{16}[\])\s_-]*/g, "")
    .replace(/filename="\./, 'filename="export.');
}
