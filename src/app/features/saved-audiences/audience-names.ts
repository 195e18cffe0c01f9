import { z } from "zod";

/** Saved audience names: required, trimmed, at most this many characters, unique (ignoring case). */
export const NAME_MAX = 80;

/** The name as it is kept: trimmed. */
export function normaliseName(name: string): string {
  return name.trim();
}

function sameName(a: string, b: string): boolean {
  return normaliseName(a).toLocaleLowerCase() === normaliseName(b).toLocaleLowerCase();
}

export type NameCheck = { ok: true; name: string } | { ok: false; error: string; suggestion?: string };

/** Checks a name against the names already taken; on a clash, suggests `Name (2)`, `Name (3)`... */
export function checkName(name: string, taken: readonly string[]): NameCheck {
  const trimmed = normaliseName(name);
  if (trimmed === "") return { ok: false, error: "Enter a name." };
  if (trimmed.length > NAME_MAX)
    return { ok: false, error: `Use at most ${NAME_MAX} characters (this one has ${trimmed.length}).` };
  if (taken.some((other) => sameName(other, trimmed)))
    return {
      ok: false,
      error: `“${trimmed}” is already used.`,
      suggestion: uniqueName(trimmed, taken),
    };
  return { ok: true, name: trimmed };
}

/**
 * `name` if it is free, else the first free `name (n)` from 2 up. A trailing ` (n)` is replaced,
 * not stacked, and the base is shortened when needed to stay within NAME_MAX.
 */
export function uniqueName(name: string, taken: readonly string[]): string {
  const trimmed = normaliseName(name).slice(0, NAME_MAX).trim() || "Untitled audience";
  if (!taken.some((other) => sameName(other, trimmed))) return trimmed;
  const base = trimmed.replace(/\s*\(\d+\)$/, "") || trimmed;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${base.slice(0, NAME_MAX - suffix.length).trimEnd()}${suffix}`;
    if (!taken.some((other) => sameName(other, candidate))) return candidate;
  }
}

/** The form's schema (react-hook-form + zod): the same rules as `checkName`. */
export function nameFormSchema(taken: readonly string[]) {
  return z.object({
    name: z.string().superRefine((value, ctx) => {
      const check = checkName(value, taken);
      if (!check.ok) ctx.addIssue({ code: "custom", message: check.error });
    }),
  });
}
