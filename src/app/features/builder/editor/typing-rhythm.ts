/**
 * When typing has ended, judged by the person's own pace. A fixed pause either counts mid-word for
 * someone who types slower than it (a request per word part, of the team's 60 a minute) or makes a
 * fast typist wait. So the pause that ends typing is a multiple of the person's recent gap between
 * keystrokes, within bounds: 150 ms for a fast typist, up to 400 ms for a slow one. Until the
 * person's pace is known (their first keys, when the page may still be busy and keys arrive
 * unevenly), a moderate typist's is assumed.
 */

/** The shortest pause that ends typing. */
export const TYPING_SETTLE_MS = 150;
/** The longest: a slower typist still sees the count this soon after stopping. */
export const TYPING_SETTLE_MAX_MS = 400;
/** A pause this many times the person's usual gap between keys ends typing. */
const PACE_FACTOR = 1.6;
/** A gap longer than this is a pause (a thought, a new word begun), not the typing pace. */
const PACE_MAX_GAP_MS = 600;
/** The pace is the median of this many latest gaps: a changed pace is followed within three keys. */
const PACE_SAMPLES = 5;
/** Fewer gaps than this say nothing yet about the pace. */
const PACE_MIN_SAMPLES = 3;
/** The pace assumed until then: about 80 words a minute. */
const MODERATE_PACE_MS = 150;

export interface TypingRhythm {
  /** When the last keystroke changed the tree (ms, 0 before any). */
  at: number;
  /** The latest gaps between keystrokes that were part of typing, oldest first. */
  gaps: readonly number[];
}

export const NO_RHYTHM: TypingRhythm = { at: 0, gaps: [] };

/** The rhythm after a keystroke at `now`; a long pause before it is not a gap of the pace. */
export function afterKeystroke(rhythm: TypingRhythm, now: number): TypingRhythm {
  const gap = now - rhythm.at;
  if (rhythm.at === 0 || gap < 0 || gap > PACE_MAX_GAP_MS) return { at: now, gaps: rhythm.gaps };
  return { at: now, gaps: [...rhythm.gaps, gap].slice(-PACE_SAMPLES) };
}

/** How long the tree must stay unchanged after a keystroke before it is counted. */
export function typingPauseMs(rhythm: TypingRhythm): number {
  const sorted = [...rhythm.gaps].sort((a, b) => a - b);
  const pace = sorted.length < PACE_MIN_SAMPLES ? MODERATE_PACE_MS : sorted[Math.floor(sorted.length / 2)]!;
  return Math.round(Math.min(TYPING_SETTLE_MAX_MS, Math.max(TYPING_SETTLE_MS, PACE_FACTOR * pace)));
}
