/**
 * Filter trees every copy of the schema accepts (`validFilterArb`), built from the real catalogue
 * (COLUMNS, operatorsFor, OPERATOR_READS) so that they follow the contract when it changes.
 */
import fc from "fast-check";
import { COLUMNS, type Column, operatorsFor } from "../../../src/contract/columns";
import { MAX_FILTER_DEPTH, OPERATOR_READS, type Operator } from "../../../src/contract/inferred";
import {
  anyScalar,
  COMPANY_TEXTS,
  type ConditionInput,
  DOMAINS,
  digitStringArb,
  type GroupInput,
  intValueArb,
  join,
  type LookalikeInput,
  matchArb,
  maxDistanceArb,
  type NodeInput,
  nodeId,
  nonBlankTextArb,
  optionalJoin,
  type SemanticInput,
  TITLES,
  textValueArb,
} from "./node-inputs";

// ---------------------------------------------------------------------------------------------
// Valid trees
// ---------------------------------------------------------------------------------------------

/** A valid condition: a catalogue column, an operator it allows, the operands that operator reads. */
export function validConditionArb(): fc.Arbitrary<ConditionInput> {
  return fc
    .constantFrom(...COLUMNS)
    .chain((column) =>
      fc.constantFrom(...operatorsFor(column)).chain((operator) => conditionFor(column, operator)),
    );
}

function conditionFor(column: Column, operator: Operator): fc.Arbitrary<ConditionInput> {
  const value = column.type === "integer" ? intValueArb : textValueArb;
  const listEntry = column.type === "integer" ? digitStringArb() : textValueArb;
  const list = fc.array(listEntry, { minLength: 1, maxLength: 5 });
  const unreadList = fc.option(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), { nil: null });
  const common = { joinWithPrevious: optionalJoin, id: nodeId };
  const base = {
    type: fc.constant("condition" as const),
    column: fc.constant(column.name),
    operator: fc.constant(operator),
  };
  const options = { noNullPrototype: true };
  switch (OPERATOR_READS[operator]) {
    case "value":
      return fc.record(
        { ...base, value, value2: anyScalar, valueList: unreadList, ...common },
        { requiredKeys: ["type", "column", "operator", "value"], ...options },
      );
    case "range":
      return fc.record(
        { ...base, value, value2: value, valueList: unreadList, ...common },
        { requiredKeys: ["type", "column", "operator", "value", "value2"], ...options },
      );
    case "list":
      return fc.record(
        { ...base, valueList: list, value: anyScalar, value2: anyScalar, ...common },
        { requiredKeys: ["type", "column", "operator", "valueList"], ...options },
      );
    case "none":
      return fc.record(
        { ...base, value: anyScalar, value2: anyScalar, valueList: unreadList, ...common },
        { requiredKeys: ["type", "column", "operator"], ...options },
      );
  }
}

export function validSemanticArb(): fc.Arbitrary<SemanticInput> {
  return fc.constantFrom<"title" | "company">("title", "company").chain((on) =>
    fc.record(
      {
        type: fc.constant("semantic" as const),
        on: fc.constant(on),
        text: fc.oneof(
          { arbitrary: fc.constantFrom(...(on === "title" ? TITLES : COMPANY_TEXTS)), weight: 3 },
          { arbitrary: nonBlankTextArb, weight: 1 },
        ),
        match: matchArb,
        maxDistance: maxDistanceArb,
        joinWithPrevious: optionalJoin,
        id: nodeId,
        negate: fc.boolean(),
      },
      { requiredKeys: ["type", "on", "text"], noNullPrototype: true },
    ),
  );
}

export function validLookalikeArb(): fc.Arbitrary<LookalikeInput> {
  const domain = fc.oneof(
    { arbitrary: fc.constantFrom(...DOMAINS), weight: 3 },
    { arbitrary: fc.domain(), weight: 1 },
  );
  const rbidOrg = fc.oneof(
    fc.integer({ min: 1, max: 999_999 }).map((n) => `ORG${String(n).padStart(6, "0")}`),
    nonBlankTextArb,
  );
  const rest = {
    match: matchArb,
    maxDistance: maxDistanceArb,
    joinWithPrevious: optionalJoin,
    id: nodeId,
    negate: fc.boolean(),
  };
  const options = { noNullPrototype: true };
  return fc.oneof(
    fc.record(
      { type: fc.constant("lookalike" as const), domain, rbidOrg: fc.constant(""), ...rest },
      { requiredKeys: ["type", "domain"], ...options },
    ),
    fc.record(
      { type: fc.constant("lookalike" as const), rbidOrg, domain: fc.constant(""), ...rest },
      { requiredKeys: ["type", "rbidOrg"], ...options },
    ),
  );
}

/**
 * Valid filter trees (GroupNode roots). `maxDepth` bounds how many groups nest below the root
 * (default 3); the tree's depth as `filterDepth` counts it is at most `maxDepth + 2`.
 */
export function validFilterArb(options: { maxDepth?: number } = {}): fc.Arbitrary<GroupInput> {
  const maxDepth = Math.max(0, Math.min(options.maxDepth ?? 3, MAX_FILTER_DEPTH - 2));
  const depthIdentifier = fc.createDepthIdentifier();
  const leaf = fc.oneof(
    { arbitrary: validConditionArb() as fc.Arbitrary<NodeInput>, weight: 5 },
    { arbitrary: validSemanticArb(), weight: 2 },
    { arbitrary: validLookalikeArb(), weight: 1 },
  );
  const groupOf = (children: fc.Arbitrary<NodeInput[]>) =>
    fc.record(
      {
        type: fc.constant("group" as const),
        op: join,
        children,
        joinWithPrevious: optionalJoin,
        negate: fc.boolean(),
        id: nodeId,
      },
      { requiredKeys: ["type"], noNullPrototype: true },
    );
  const tree = fc.letrec<{ node: NodeInput; group: GroupInput; root: GroupInput }>((tie) => ({
    node: fc.oneof({ maxDepth, depthIdentifier, depthSize: "small" }, leaf, tie("group")),
    group: groupOf(fc.array(tie("node"), { maxLength: 4, depthIdentifier })),
    // Mostly non-empty roots: an empty root is one case among many, not a third of them.
    root: fc.oneof(
      {
        arbitrary: groupOf(fc.array(tie("node"), { minLength: 1, maxLength: 5, depthIdentifier })),
        weight: 8,
      },
      { arbitrary: tie("group"), weight: 1 },
    ),
  }));
  return tree.root;
}

/**
 * A chain of `depth` nested groups (the root counts as one), the innermost holding `leaf` if given
 * (then `filterDepth` is `depth + 1`) or empty.
 */
export function nestedGroups(depth: number, leaf: NodeInput | null = null): GroupInput {
  let node: GroupInput = { type: "group", children: leaf ? [leaf] : [] };
  for (let i = 1; i < depth; i++) node = { type: "group", children: [node] };
  return node;
}
