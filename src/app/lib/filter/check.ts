/**
 * Reading a filter tree someone hands the app (a link, this device's storage, a saved audience, an
 * imported file) with the contract's STRICT schema, split in two:
 * - errors (not JSON, unknown fields, wrong shapes, unknown node types, nesting too deep): the value
 *   is refused, and the caller falls back with a warning;
 * - unfinished rules (a condition without its value yet, an unknown column, an empty semantic text):
 *   the tree is kept as it is, with those lines in `unfinished`, because a person's half-typed rule
 *   is work too, and the builder shows those reasons itself.
 */
import type { z } from "zod";
import { getColumn } from "../../../contract/columns";
import { toValidationRecord, type ValidationIssue } from "../../../contract/errors";
import { type FilterNode, type GroupNode, nodeDefaults, strictFilterSchemas } from "../../../contract/filter";
import type { Operator } from "../../../contract/inferred";
import { describeLocation, readableIssue } from "../../api/api-error";
import { OPERATOR_LABELS } from "./validate";

export type TreeCheck = { tree: GroupNode; unfinished: string[] } | { errors: string[] };

/**
 * Checks a parsed JSON value as a filter root with the STRICT contract schema. Each line says where
 * in words, then what (e.g. "rule 3, its value: Enter a whole number").
 */
export function checkFilterTree(value: unknown): TreeCheck {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { errors: ['Expected a filter group ({ "type": "group", ... })'] };
  const type = (value as { type?: unknown }).type;
  if (type !== "group")
    return {
      errors: [
        `The top of a filter must be a group ({ "type": "group", "children": [...] }), not ${JSON.stringify(type) ?? "nothing"}`,
      ],
    };
  const result = strictFilterSchemas.root.safeParse(value);
  if (result.success) {
    if (!result.data) return { errors: ["Expected a filter group"] };
    return { tree: result.data, unfinished: [] };
  }
  const lines = readableIssues(result.error.issues, value);
  if (result.error.issues.every(isUnfinished))
    return { tree: withDefaults(value as GroupNode), unfinished: lines };
  return { errors: lines };
}

/** A node-level check (a missing value, an unknown column...) rather than a broken shape. */
function isUnfinished(issue: z.core.$ZodIssue): boolean {
  if (issue.code !== "custom") return false;
  // The depth limit is the one custom issue that refuses the whole input.
  return !(issue.params as { omitInput?: boolean } | undefined)?.omitInput;
}

/**
 * The contract's defaults applied to a tree whose shape the strict schema accepted but whose rules
 * are unfinished (zod gives no output then): the schema's own defaults, read off its fields.
 */
function withDefaults<T extends FilterNode>(node: T): T {
  const filled = { ...nodeDefaults(node.type), ...dropUndefined(node) } as T;
  if (filled.type !== "group") return filled;
  return { ...filled, children: filled.children.map((child) => withDefaults(child)) };
}

function dropUndefined<T extends object>(node: T): Partial<T> {
  return Object.fromEntries(Object.entries(node).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** zod issues as lines a person can act on: "rule 3, its value: Enter a whole number". */
export function readableIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  const record = toValidationRecord(issues, "body", input);
  return record.detail.map((issue) => {
    // In words ("rule 2.1, its value"), as the service's own refusals are said: never a path.
    return `${describeLocation(["filter", ...issue.loc.slice(1)])}: ${readableMessage(issue)}`;
  });
}

const NODE_TYPES = "'condition', 'group', 'semantic' or 'lookalike'";

function readableMessage(issue: ValidationIssue): string {
  switch (issue.type) {
    case "int_type":
      return "Enter a whole number";
    case "float_type":
      return "Enter a number";
    case "string_type":
      return "Enter text";
    case "bool_type":
      return "Use true or false";
    case "list_type":
      return "Expected a list";
    case "dict_type":
      return "Expected an object";
    case "missing":
      return "Required, but missing";
    case "extra_forbidden":
      return "Unknown field: remove it";
    case "union_tag_invalid":
      return `Unknown node type: use ${NODE_TYPES}`;
    case "union_tag_not_found":
      return `Missing node "type": use ${NODE_TYPES}`;
    case "enum":
    case "literal_error":
      return issue.msg.replace(/^Input should be /, "Use ");
    case "value_error":
      return inWords(readableIssue(issue.msg));
    default:
      return inWords(issue.msg);
  }
}

/** A column by its label, mid-sentence ("job title", but "HQ country" and "Company ID" kept). */
const columnWords = (name: string) => {
  const label = getColumn(name)?.label;
  if (!label) return `“${name}”`;
  return /^[A-Z][a-z]/.test(label) && !/ ID$/.test(label)
    ? label.charAt(0).toLowerCase() + label.slice(1)
    : label;
};

const operatorWords = (operator: string) => `“${OPERATOR_LABELS[operator as Operator] ?? operator}”`;

/**
 * The contract's refusals that name its fields and columns (right for the API, which speaks them),
 * said in the editor's words; anything else with its first letter upper-cased.
 */
const IN_WORDS: readonly [RegExp, (...groups: string[]) => string][] = [
  [/^a lookalike needs rbidOrg or domain$/, () => "A lookalike needs its company: a domain or a company ID"],
  [/^valueList must hold 1 to (\d+) values$/, (max) => `A list holds 1 to ${max} values`],
  [/^unknown column '(.*)'$/, (name) => `There is no field “${name}”`],
  [/^no company with rbidOrg '(.*)'$/, (id) => `No company has the ID “${id}”`],
  [/^no company with domain '(.*)'$/, (domain) => `No company has the domain “${domain}”`],
  [
    /^operator '(.*)' is not allowed on (\w+); use one of (.*)$/,
    (operator, column, allowed) =>
      `${operatorWords(operator ?? "")} does not apply to ${columnWords(column ?? "")}: use ${(allowed ?? "")
        .split(", ")
        .map(operatorWords)
        .join(", ")}`,
  ],
];

/** A refusal of the contract (or of the service, which speaks it) in the editor's words. */
export function inWords(text: string): string {
  for (const [pattern, say] of IN_WORDS) {
    const match = pattern.exec(text);
    if (match) return say(...match.slice(1).map((group) => group ?? ""));
  }
  return text.charAt(0).toUpperCase() + text.slice(1);
}
