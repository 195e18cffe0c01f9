import { memo } from "react";
import {
  DEFAULT_MATCH_LEVEL,
  MATCH_LEVEL_TEXT,
  MATCH_LEVELS,
  type MatchLevel,
} from "../../../../contract/inferred";
import { fieldProblems } from "./field-problems";
import { problemId } from "./problem-fields";
import { Segmented, type SegmentedOption } from "./segmented";

const LEVEL_OPTIONS: readonly SegmentedOption<MatchLevel>[] = MATCH_LEVELS.map((level) => ({
  value: level,
  label: level.charAt(0).toUpperCase() + level.slice(1),
  title: MATCH_LEVEL_TEXT[level],
}));

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
}: {
  nodeId: string;
  name: string;
  match: MatchLevel | null | undefined;
  maxDistance: number | null | undefined;
  onChange(level: MatchLevel): void;
}) {
  const custom = maxDistance !== undefined && maxDistance !== null;
  const level = custom ? null : (match ?? DEFAULT_MATCH_LEVEL);
  const textId = `fe-match-${nodeId}`;
  return (
    <div className="fe-match">
      <Segmented
        label={`Match level of ${name}`}
        options={LEVEL_OPTIONS}
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
      </p>
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
