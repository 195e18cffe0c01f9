import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  afterKeystroke,
  NO_RHYTHM,
  TYPING_SETTLE_MAX_MS,
  TYPING_SETTLE_MS,
  type TypingRhythm,
  typingPauseMs,
} from "../../../../src/app/features/builder/editor/typing-rhythm";

/** Keystrokes `gaps` apart, from t = 1000. */
function typed(gaps: number[], from: TypingRhythm = NO_RHYTHM): TypingRhythm {
  let rhythm = afterKeystroke(from, from.at === 0 ? 1000 : from.at + (gaps.shift() ?? 0));
  for (const gap of gaps) rhythm = afterKeystroke(rhythm, rhythm.at + gap);
  return rhythm;
}

describe("the pause that ends typing", () => {
  it("is a moderate typist's until the pace is known (the first keys arrive unevenly)", () => {
    expect(typingPauseMs(NO_RHYTHM)).toBe(240);
    expect(typingPauseMs(typed([60, 60]))).toBe(240);
  });

  it("stays the shortest for a fast typist", () => {
    expect(typingPauseMs(typed([60, 70, 65, 80, 60]))).toBe(TYPING_SETTLE_MS);
  });

  it("grows with a slower typist's pace, so a count is not sent between two of their keys", () => {
    const gaps = [130, 135, 128, 140, 132, 138, 131, 129];
    const pause = typingPauseMs(typed([...gaps]));
    expect(pause).toBeGreaterThan(Math.max(...gaps));
    expect(pause).toBe(Math.round(1.6 * 132));
  });

  it("is bounded for a very slow typist", () => {
    expect(typingPauseMs(typed([350, 360, 340, 355]))).toBe(TYPING_SETTLE_MAX_MS);
  });

  it("does not take a pause between words for the pace, and keeps the pace across it", () => {
    const word = typed([130, 130, 130, 130]);
    const afterPause = afterKeystroke(word, word.at + 1500);
    expect(afterPause.gaps).toEqual(word.gaps);
    expect(typingPauseMs(afterPause)).toBe(typingPauseMs(word));
  });

  it("follows the latest pace: a typist who speeds up gets the short pause back", () => {
    const slow = typed([250, 250, 250, 250, 250, 250, 250, 250, 250]);
    expect(typingPauseMs(slow)).toBe(TYPING_SETTLE_MAX_MS);
    const fast = typed([60, 60, 60, 60, 60, 60, 60, 60, 60], slow);
    expect(typingPauseMs(fast)).toBe(TYPING_SETTLE_MS);
  });

  it("follows a slower pace within three keys, before the word is half typed", () => {
    const fast = typed([90, 90, 90, 90, 90, 90, 90, 90, 90]);
    const slower = typed([300, 300, 300], fast);
    expect(typingPauseMs(slower)).toBe(TYPING_SETTLE_MAX_MS);
  });

  it("is always within its bounds, whatever the gaps (a clock set back included)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5_000, max: 5_000 }), { maxLength: 40 }), (gaps) => {
        const pause = typingPauseMs(typed(gaps));
        return pause >= TYPING_SETTLE_MS && pause <= TYPING_SETTLE_MAX_MS;
      }),
    );
  });
});
