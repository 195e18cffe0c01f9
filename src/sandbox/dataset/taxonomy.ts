/**
 * Expands the job-title vocabulary into the list of distinct titles, each with its function,
 * level and relative frequency, and computes how levels and functions are distributed.
 */
import {
  EXECUTIVE_LEVEL_BOOST,
  functionWeights,
  type IndustryFamily,
  JOB_FUNCTIONS,
  JOB_LEVELS,
  type JobLevel,
  LEVEL_WEIGHTS,
  REGIONS,
  type SizeClass,
} from "./vocab/job-titles";

export interface TitleEntry {
  title: string;
  functionIdx: number;
  levelIdx: number;
  /** Relative frequency among the titles of the same function and level. */
  weight: number;
}

export const FUNCTION_NAMES: readonly string[] = JOB_FUNCTIONS.map((f) => f.name);
export const SIZE_CLASSES: readonly SizeClass[] = ["small", "mid", "large"];
export const FAMILIES: readonly IndustryFamily[] = [
  "tech",
  "finance",
  "health",
  "education",
  "professional",
  "industrial",
  "consumer",
  "public",
];

/** Earlier templates in a level's list are the common spellings. */
function templateWeight(position: number): number {
  return (position === 0 ? 2 : 1) / (1 + 0.3 * position);
}

function expand(template: string, specs: Record<string, readonly string[]> | undefined): string[] {
  const match = /\{(\w+)\}/.exec(template);
  if (!match) return [template];
  const key = match[1] ?? "";
  const values = key === "region" ? REGIONS : specs?.[key];
  if (!values) throw new Error(`title template ${template} names unknown list {${key}}`);
  return values.map((v) => template.replace(match[0], v));
}

let cachedTitles: TitleEntry[] | undefined;

/** All distinct titles (case-insensitively); a title listed twice keeps its first function and level. */
export function allTitles(): readonly TitleEntry[] {
  if (cachedTitles) return cachedTitles;
  const seen = new Set<string>();
  const out: TitleEntry[] = [];
  JOB_FUNCTIONS.forEach((fn, functionIdx) => {
    JOB_LEVELS.forEach((level, levelIdx) => {
      const templates = fn.titles[level] ?? [];
      templates.forEach((template, position) => {
        const expansions = expand(template, fn.specs);
        const weight = templateWeight(position) / expansions.length;
        for (const title of expansions) {
          const key = title.toLowerCase();
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ title, functionIdx, levelIdx, weight });
        }
      });
    });
  });
  cachedTitles = out;
  return out;
}

/** Whether a function has any title at a level. */
export function hasTitles(functionIdx: number, levelIdx: number): boolean {
  return allTitles().some((t) => t.functionIdx === functionIdx && t.levelIdx === levelIdx);
}

export function levelWeights(size: SizeClass): number[] {
  return JOB_LEVELS.map((level) => LEVEL_WEIGHTS[size][level]);
}

/** Weights of each function for people of one level at a company of one family. */
export function functionWeightsFor(family: IndustryFamily, level: JobLevel): number[] {
  const base = functionWeights(family);
  const levelIdx = JOB_LEVELS.indexOf(level);
  return FUNCTION_NAMES.map((name, functionIdx) => {
    if (!hasTitles(functionIdx, levelIdx)) return 0;
    const boost = name === "Executive" ? (EXECUTIVE_LEVEL_BOOST[level] ?? 1) : 1;
    return (base[name] ?? 0) * boost;
  });
}
