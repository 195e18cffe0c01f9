import { useDroppable } from "@dnd-kit/core";
import { SortableContext, type SortingStrategy } from "@dnd-kit/sortable";
import { memo, useContext } from "react";
import { describeNode } from "../../../../contract/describe";
import type { GroupNode, JoinOp } from "../../../../contract/filter";
import { type CommandId, commandById, formatKey } from "../../../lib/filter/commands";
import {
  BODY_PREFIX,
  FocusMemoryContext,
  GroupOpContext,
  PlatformContext,
  useDispatch,
  useDropSpot,
  useNodeProblems,
} from "./editor-context";
import { fieldProblems } from "./field-problems";
import { NodeActionsMenu } from "./node-actions-menu";
import { NodeItem } from "./node-item";
import { DragHandle, type HandleProps, NodeAside, NotToggle } from "./node-parts";
import { problemId, problemsByField } from "./problem-fields";
import { reportRender } from "./render-probe";
import { Segmented, type SegmentedOption } from "./segmented";
import { useGroupNode } from "./use-group-node";

/** Items never shift while dragging: a drop indicator shows where the item will land. */
const NO_SHIFT: SortingStrategy = () => null;

const OP_OPTIONS: readonly SegmentedOption<JoinOp>[] = [
  {
    value: "AND",
    label: "AND",
    ariaLabel: "All of these (AND)",
    title: "Match people who meet all of these",
  },
  { value: "OR", label: "OR", ariaLabel: "Any of these (OR)", title: "Match people who meet any of these" },
];

const ADD_BUTTONS: readonly { command: ReturnType<typeof commandById>; short: string }[] = (
  [
    ["addCondition", "Condition"],
    ["addGroup", "Group"],
    ["addTitleMatch", "Job title match"],
    ["addCompanyMatch", "Company match"],
    ["addLookalike", "Lookalike"],
  ] as const satisfies readonly (readonly [CommandId, string])[]
).map(([id, short]) => ({ command: commandById(id), short }));

/** The group's add buttons: the same command objects as its menu and the shortcuts. */
const AddBar = memo(function AddBar({ groupId, name }: { groupId: string; name: string }) {
  const dispatch = useDispatch();
  const memory = useContext(FocusMemoryContext);
  const { mac } = useContext(PlatformContext);
  return (
    <div className="fe-add-bar">
      {ADD_BUTTONS.map(({ command, short }) => {
        const key = command.keys[0];
        return (
          <button
            key={command.id}
            type="button"
            className="fe-add"
            aria-label={`${command.label} to ${name}`}
            title={`${command.description}${key ? ` (${formatKey(key, mac)})` : ""}`}
            onClick={() => {
              memory.current = null;
              dispatch.run(command.id, groupId);
            }}
          >
            <span aria-hidden="true">+</span> {short}
          </button>
        );
      })}
    </div>
  );
});

export interface GroupNodeProps {
  node: GroupNode;
  /** "" for the root, else "2.1". */
  position: string;
  /** 0 for the root. */
  depth: number;
  handle: HandleProps | null;
}

/** A group: NOT, AND / OR, collapse to its one-line summary, actions; its items; add buttons. */
export const GroupNodeView = memo(function GroupNodeView({ node, position, depth, handle }: GroupNodeProps) {
  const group = useGroupNode(node);
  reportRender("GroupNode", group.id);
  const reasons = useNodeProblems(group.id);
  const problems = problemsByField(node, reasons);
  const bodyKey = `${BODY_PREFIX}${group.id}`;
  const droppable = useDroppable({ id: bodyKey, disabled: group.collapsed });
  const inside = useDropSpot(bodyKey) === "inside";
  const isRoot = depth === 0;
  const name = isRoot ? "the whole filter" : `group ${position}`;
  const title = isRoot ? "Filter" : `Group ${position}`;
  const opText = node.op === "OR" ? "Any of these (OR)" : "All of these (AND)";
  const bodyId = `fe-body-${group.id}`;
  const children = node.children;
  const onlyChildNegated = !isRoot && node.negate && children.length === 1;

  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of rows named by its operator ("All of these (AND)"), as the pattern asks
    <section
      className="fe-group"
      role="group"
      aria-label={`${title}: ${opText}${node.negate ? ", negated (NOT)" : ""}`}
      data-node-id={group.id}
      aria-describedby={problems.node ? problemId(group.id, "node") : undefined}
      data-depth={depth % 4}
      data-root={isRoot || undefined}
      data-negated={node.negate || undefined}
      data-invalid={reasons ? true : undefined}
    >
      <div className="fe-group-header">
        {handle ? <DragHandle handle={handle} name={name} /> : null}
        <span className="fe-group-title" tabIndex={-1} data-field={isRoot ? "handle" : "title"}>
          {title}
        </span>
        <NotToggle on={node.negate} name={name} onToggle={group.toggleNot} />
        <Segmented
          label={`How ${name} combines its items`}
          options={OP_OPTIONS}
          value={node.op}
          onChange={group.setOp}
          dataField="op"
          className="fe-op"
        />
        <span className="fe-group-tools">
          <button
            type="button"
            className="fe-icon-button fe-collapse"
            aria-expanded={!group.collapsed}
            aria-controls={bodyId}
            aria-label={`${group.collapsed ? "Expand" : "Collapse"} ${name}`}
            data-field="collapse"
            onClick={group.toggleCollapse}
          >
            <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
              <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.8" />
            </svg>
          </button>
          <NodeAside node={node} nodeId={group.id} />
          <NodeActionsMenu nodeId={group.id} name={name} />
        </span>
      </div>
      {fieldProblems(problemId(group.id, "node"), problems.node)}
      {group.collapsed ? (
        <button
          type="button"
          id={bodyId}
          className="fe-summary"
          aria-label={`Expand ${name}: ${describeNode(node)}`}
          onClick={group.toggleCollapse}
        >
          {describeNode(node)}
        </button>
      ) : (
        <div
          id={bodyId}
          ref={droppable.setNodeRef}
          className="fe-group-body"
          data-drop={inside ? "inside" : undefined}
        >
          <SortableContext id={group.id} items={group.childIds} strategy={NO_SHIFT}>
            <GroupOpContext.Provider value={node.op}>
              {children.length > 0 ? (
                <ol className="fe-children">
                  {children.map((child, i) => (
                    <NodeItem
                      key={child.id ?? `index-${i}`}
                      node={child}
                      index={i}
                      position={isRoot ? `${i + 1}` : `${position}.${i + 1}`}
                      depth={depth + 1}
                      negated={onlyChildNegated}
                    />
                  ))}
                </ol>
              ) : (
                <p className="fe-empty">
                  {isRoot
                    ? "No conditions yet: everyone matches. Add a condition to start."
                    : "This group is empty, so it matches everyone. Add something, or drop an item here."}
                </p>
              )}
            </GroupOpContext.Provider>
          </SortableContext>
          <AddBar groupId={group.id} name={name} />
        </div>
      )}
    </section>
  );
});
