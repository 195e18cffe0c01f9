import { memo, type ReactNode } from "react";
import type { LookalikeNode, SemanticNode } from "../../../../contract/filter";
import {
  DEFAULT_MATCH_LEVEL,
  MATCH_LEVEL_TEXT,
  MATCH_LEVELS,
  type MatchLevel,
} from "../../../../contract/inferred";
import { formatCount } from "../../../lib/format";
import { fieldProblems } from "./field-problems";
import { LazyMenu } from "./lazy-menu";
import { RowTools } from "./node-parts";
import { problemId } from "./problem-fields";

const levelLabel = (level: MatchLevel) => level.charAt(0).toUpperCase() + level.slice(1);
const people = (n: number) => formatCount(n, "person", "people");

/** People the match keeps at each level, once counted. */
export type LevelCounts = Partial<Record<MatchLevel, number>>;

/**
 * How close a match must be, in the rule's line: a button showing the level (the people it keeps
 * are the rule's own count, at the line's end), opening a menu of the five levels (narrowest to
 * widest: exact, same, similar, related, broad), each with what it means and the people it would
 * keep. A custom `maxDistance` shows as "Custom" until a level replaces it.
 */
export const MatchLevelMenu = memo(function MatchLevelMenu({
  nodeId,
  name,
  match,
  maxDistance,
  onChange,
  counts,
}: {
  nodeId: string;
  name: string;
  match: MatchLevel | null | undefined;
  maxDistance: number | null | undefined;
  onChange(level: MatchLevel): void;
  counts?: LevelCounts | undefined;
}) {
  const custom = maxDistance !== undefined && maxDistance !== null;
  const level = custom ? null : (match ?? DEFAULT_MATCH_LEVEL);
  const labelId = `fe-match-label-${nodeId}`;
  const textId = `fe-match-${nodeId}`;
  const meaning = level
    ? MATCH_LEVEL_TEXT[level]
    : `Custom: within distance ${maxDistance}. Choose a level to replace it.`;
  return (
    <>
      <span id={labelId} className="visually-hidden">{`Match level of ${name}`}</span>
      <span id={textId} className="visually-hidden">
        {meaning}
      </span>
      <LazyMenu
        label={{ labelledBy: (buttonId) => `${labelId} ${buttonId}` }}
        buttonClassName="fe-level-button"
        buttonContent={
          <>
            <span className="fe-level-name">{level ? levelLabel(level) : "Custom"}</span>
            <svg viewBox="0 0 10 6" width="10" height="6" aria-hidden="true" focusable="false">
              <path d="M1 1l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.5" />
            </svg>
          </>
        }
        title={meaning}
        describedBy={textId}
        dataField="match"
        align="start"
        menuClassName="fe-menu fe-level-menu"
        menuLabelledBy={labelId}
      >
        {(chosen, Menu) => (
          <>
            <Menu.Label className="menu-label fe-menu-label">How close a match</Menu.Label>
            {custom ? <p className="fe-level-custom">{meaning}</p> : null}
            <Menu.RadioGroup
              value={level ?? ""}
              onValueChange={(value) => {
                chosen();
                onChange(value as MatchLevel);
              }}
            >
              {MATCH_LEVELS.map((option) => {
                const n = counts?.[option];
                return (
                  <Menu.RadioItem
                    key={option}
                    value={option}
                    className="fe-menu-item fe-level-item"
                    aria-label={`${levelLabel(option)}${n === undefined ? "" : `, ${people(n)}`}: ${MATCH_LEVEL_TEXT[option]}`}
                  >
                    <span className="fe-level-check" aria-hidden="true">
                      <Menu.ItemIndicator>✓</Menu.ItemIndicator>
                    </span>
                    <span className="fe-level-name">{levelLabel(option)}</span>
                    <span className="fe-level-meaning">{MATCH_LEVEL_TEXT[option]}</span>
                    <span className="fe-level-count">{n === undefined ? "" : people(n)}</span>
                  </Menu.RadioItem>
                );
              })}
            </Menu.RadioGroup>
          </>
        )}
      </LazyMenu>
    </>
  );
});

/** Under a title, company or lookalike rule: what is wrong with its level, or with it as a whole. */
export function MatchProblems({
  nodeId,
  problems,
}: {
  nodeId: string;
  problems: { match?: readonly string[] | undefined; node?: readonly string[] | undefined };
}) {
  return (
    <>
      {fieldProblems(problemId(nodeId, "match"), problems.match)}
      {fieldProblems(problemId(nodeId, "node"), problems.node)}
    </>
  );
}

/** The end of a match's or a lookalike's line: its level, its list button, then the row's tools. */
export function MatchLineEnd({
  node,
  row,
  name,
  counts,
  reach,
}: {
  node: SemanticNode | LookalikeNode;
  /** The row's id and its edits. */
  row: { id: string; setLevel(level: MatchLevel): void; toggleNot(): void };
  name: string;
  counts: LevelCounts;
  /** The reach panel's toggle, between the level and the row's tools. */
  reach: { toggle: ReactNode };
}) {
  const nodeId = row.id;
  return (
    <>
      <MatchLevelMenu
        nodeId={nodeId}
        name={name}
        match={node.match}
        maxDistance={node.maxDistance}
        onChange={row.setLevel}
        counts={counts}
      />
      {reach.toggle}
      <RowTools node={node} nodeId={nodeId} name={name} negated={node.negate} onToggleNot={row.toggleNot} />
    </>
  );
}
