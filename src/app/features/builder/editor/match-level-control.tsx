import { memo, type ReactNode, useMemo } from "react";
import {
  DEFAULT_MATCH_LEVEL,
  MATCH_LEVEL_TEXT,
  MATCH_LEVELS,
  type MatchLevel,
} from "../../../../contract/inferred";
import { formatNumber } from "../../../lib/format";
import { fieldProblems } from "./field-problems";
import { problemId } from "./problem-fields";
import { Segmented, type SegmentedOption } from "./segmented";

const levelLabel = (level: MatchLevel) => level.charAt(0).toUpperCase() + level.slice(1);

/** People the match keeps at each level, once counted. */
export type LevelCounts = Partial<Record<MatchLevel, number>>;

function levelOptions(counts: LevelCounts | undefined): SegmentedOption<MatchLevel>[] {
  return MATCH_LEVELS.map((level) => {
    const count = counts?.[level];
    return {
      value: level,
      // The count is said once for all levels in the control's description, not in each name.
      label:
        count === undefined ? (
          levelLabel(level)
        ) : (
          <>
            {levelLabel(level)}
            <span className="fe-level-count" aria-hidden="true">
              {formatNumber(count)}
            </span>
          </>
        ),
      title: MATCH_LEVEL_TEXT[level],
    };
  });
}

function countsSentence(counts: LevelCounts | undefined): string {
  const known = MATCH_LEVELS.filter((level) => counts?.[level] !== undefined);
  if (known.length === 0) return "";
  return ` People at each level: ${known.map((level) => `${levelLabel(level)} ${formatNumber(counts?.[level] ?? 0)}`).join(", ")}.`;
}

/**
 * How close a match must be, narrowest to widest (exact → same → similar → related → broad), with
 * a line under it saying what the chosen level means. A custom `maxDistance` shows as no level.
 */
export const MatchLevelControl = memo(function MatchLevelControl({
  nodeId,
  name,
  match,
  maxDistance,
  onChange,
  counts,
  extra,
}: {
  nodeId: string;
  name: string;
  match: MatchLevel | null | undefined;
  maxDistance: number | null | undefined;
  onChange(level: MatchLevel): void;
  counts?: LevelCounts | undefined;
  /** Shown after the level's words (e.g. "See the titles it takes in"). */
  extra?: ReactNode;
}) {
  const options = useMemo(() => levelOptions(counts), [counts]);
  const custom = maxDistance !== undefined && maxDistance !== null;
  const level = custom ? null : (match ?? DEFAULT_MATCH_LEVEL);
  const textId = `fe-match-${nodeId}`;
  return (
    <div className="fe-match">
      <Segmented
        label={`Match level of ${name}`}
        options={options}
        value={level}
        onChange={onChange}
        describedBy={textId}
        dataField="match"
        className="fe-match-levels"
      />
      <p id={textId} className="fe-match-text">
        {level
          ? MATCH_LEVEL_TEXT[level]
          : `Custom: within distance ${maxDistance}. Choose a level to replace it.`}
        <span className="visually-hidden">{countsSentence(counts)}</span>
      </p>
      {extra}
    </div>
  );
});

/** The end of a title, company or lookalike row: its level, then the reasons about level and node. */
export function LevelFooter(props: {
  nodeId: string;
  name: string;
  match: MatchLevel | null | undefined;
  maxDistance: number | null | undefined;
  onChange: (match: MatchLevel) => void;
  problems: { match?: readonly string[] | undefined; node?: readonly string[] | undefined };
  counts?: LevelCounts | undefined;
  extra?: ReactNode;
}) {
  const { problems, ...control } = props;
  return (
    <>
      <MatchLevelControl {...control} />
      {fieldProblems(problemId(props.nodeId, "match"), problems.match)}
      {fieldProblems(problemId(props.nodeId, "node"), problems.node)}
    </>
  );
}
