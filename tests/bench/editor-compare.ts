import type { Browser, Locator, Page } from "playwright-core";
import type { CompareState, Snapshot } from "./editor-harness/compare";
import { fmt, median, p95, table } from "./stats";

/**
 * Our filter editor against react-querybuilder (part of `npm run bench`, in the editor part): both
 * mounted on the bench's compare page (tests/bench/editor-harness/compare.tsx, production build
 * with react-dom/profiling) over the same 30 x 10 tree, each in its own tab of the same Chromium,
 * and driven through the same script with each editor's own controls, interleaved step by step
 * (the editor that goes first alternates from round to round, so that drift in the machine's load
 * falls on both). Per edit: from the event that makes it (keydown, click, the select's input
 * event) to React's last commit of it (Profiler onRender at the root), React's render time
 * (actualDuration, summed over the edit's commits) and to the first animation frame after it.
 */

export const COMPARE_GROUPS = 30;
export const COMPARE_PER_GROUP = 10;
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 12);
/** Typed at the end of the value, one edit per keystroke. */
const TYPED = " abcdefghi";
/** Groups worked on, one per round (and WARMUP_GROUP before): spread over the tree, mostly deep. */
const ROUND_GROUPS = [23, 17, 28, 11, 26, 5, 20, 29, 14, 24, 8, 27, 19, 2, 25, 13, 30, 16, 22, 10];
const WARMUP_GROUP = 3;
/** The condition of each round's group typed into and given another comparison; the ones deleted. */
const TYPED_RULE = 7;
const REMOVED_RULE = 5;
const REMOVED_BY_KEY_RULE = 3;

type EditorId = "ours" | "rqb";

/** The edits measured, in script order, as the report names them. */
const KINDS = [
  { kind: "keystroke", label: `keystroke in a value (${TYPED.length} per round)` },
  { kind: "operator", label: "comparison changed (select, ArrowDown)" },
  { kind: "add", label: "rule added to a group (button)" },
  { kind: "remove", label: "rule removed (ours: actions menu, Delete; theirs: x button)" },
  { kind: "removeKey", label: "rule removed (ours: Ctrl+Backspace; theirs: x button)" },
  { kind: "combinator", label: "group AND / OR switched (arrow key)" },
] as const;
type Kind = (typeof KINDS)[number]["kind"];

interface Tab {
  id: EditorId;
  page: Page;
  errors: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How each editor's own controls are found, for rule `g{g}c{c}` and group `g{g}`. */
const ui = {
  value: (t: Tab, rule: string): Locator =>
    t.id === "ours"
      ? t.page.locator(`[data-node-id="${rule}"] input[data-field="value"]`)
      : t.page.locator(`[data-rule-id="${rule}"] > input.rule-value`),
  operator: (t: Tab, rule: string): Locator =>
    t.id === "ours"
      ? t.page.locator(`[data-node-id="${rule}"] select[data-field="operator"]`)
      : t.page.locator(`[data-rule-id="${rule}"] > select.rule-operators`),
  addRule: (t: Tab, group: string): Locator =>
    t.id === "ours"
      ? t.page.locator(`[data-node-id="${group}"] > .fe-group-body > .fe-add-bar > button`).first()
      : t.page.locator(`[data-rule-group-id="${group}"] > .ruleGroup-header > button.ruleGroup-addRule`),
  removeRule: (t: Tab, rule: string): Locator =>
    t.id === "ours"
      ? t.page.locator(`[data-node-id="${rule}"] button[data-field="menu"]`)
      : t.page.locator(`[data-rule-id="${rule}"] > button.rule-remove`),
  combinator: (t: Tab, group: string): Locator =>
    t.id === "ours"
      ? t.page.locator(`[data-node-id="${group}"] > .fe-group-header [data-field="op"][aria-checked="true"]`)
      : t.page.locator(`[data-rule-group-id="${group}"] > .ruleGroup-header > select.ruleGroup-combinators`),
};

async function begin(t: Tab, kind: string, trigger: "keydown" | "click" | "pointerdown") {
  await t.page.evaluate(
    ([k, tr]) => (window as unknown as { __cmp: CompareState }).__cmp.begin(k!, tr as never),
    [kind, trigger],
  );
}

/** Waits until the edit under way has committed and its frames have come (or 3 s went by). */
async function settle(t: Tab, minimumMs: number) {
  await sleep(minimumMs);
  for (let i = 0; i < 60; i++) {
    const done = await t.page.evaluate(() => {
      const edits = (window as unknown as { __cmp: CompareState }).__cmp.edits;
      const last = edits[edits.length - 1];
      return (
        !!last &&
        last.t0 !== undefined &&
        last.commits.length > 0 &&
        last.frames.length >= last.commits.length
      );
    });
    if (done) return;
    await sleep(50);
  }
}

/** Scrolls the control into view and lets the scroll's own frames pass before an edit begins. */
async function ready(locator: Locator) {
  await locator.scrollIntoViewIfNeeded();
  await sleep(60);
}

/** One step of the script on one editor. */
async function step(t: Tab, kind: Kind, group: number) {
  const g = `g${group}`;
  const typed = `${g}c${TYPED_RULE}`;
  const removed = `${g}c${kind === "removeKey" ? REMOVED_BY_KEY_RULE : REMOVED_RULE}`;
  switch (kind) {
    case "keystroke": {
      const input = ui.value(t, typed);
      await ready(input);
      await input.click();
      await t.page.keyboard.press("End");
      await sleep(100);
      for (const char of TYPED) {
        await begin(t, "keystroke", "keydown");
        await t.page.keyboard.press(char === " " ? "Space" : char);
        await settle(t, 30);
      }
      return;
    }
    case "operator": {
      // Both are native selects: focused, then ArrowDown picks the next comparison (is not / !=).
      const select = ui.operator(t, typed);
      await ready(select);
      await select.focus();
      await sleep(60);
      await begin(t, "operator", "keydown");
      await t.page.keyboard.press("ArrowDown");
      await settle(t, 60);
      return;
    }
    case "add": {
      const button = ui.addRule(t, g);
      await ready(button);
      await begin(t, "add", "click");
      await button.click();
      await settle(t, 100);
      return;
    }
    case "remove":
    case "removeKey": {
      const button = ui.removeRule(t, removed);
      await ready(button);
      if (t.id === "ours" && kind === "remove") {
        // Ours deletes from the row's actions menu: opening it is not the edit (measured apart).
        await begin(t, "menu", "pointerdown");
        await button.click();
        await settle(t, 100);
        // Moving to the item highlights it (commits of the menu's own): not part of either edit.
        await begin(t, "hover", "click");
        const item = t.page.getByRole("menuitem", { name: /^Delete\b/ });
        await item.waitFor();
        await item.hover();
        await sleep(60);
        await begin(t, "remove", "click");
        await item.click();
      } else if (t.id === "ours") {
        // Or by its shortcut, from a control of the row (the menu button here).
        await button.focus();
        await t.page.keyboard.down("Control");
        await sleep(60);
        await begin(t, "removeKey", "keydown");
        await t.page.keyboard.press("Backspace");
        await t.page.keyboard.up("Control");
      } else {
        await begin(t, kind, "click");
        await button.click();
      }
      await settle(t, 100);
      return;
    }
    case "combinator": {
      // From the keyboard in both: ours is a radio group (an arrow moves to the other operator),
      // react-querybuilder's a native select (an arrow picks the option below or above).
      const control = ui.combinator(t, g);
      await ready(control);
      await control.focus();
      await sleep(60);
      const key =
        t.id === "ours" ? "ArrowRight" : (await control.inputValue()) === "and" ? "ArrowDown" : "ArrowUp";
      await begin(t, "combinator", "keydown");
      await t.page.keyboard.press(key);
      await settle(t, 60);
      return;
    }
  }
}

/** What the script must have done to each round's group (checked in both editors at the end). */
function checkSnapshot(snapshot: Snapshot, groups: number[]): string[] {
  const wrong: string[] = [];
  for (const group of groups) {
    const g = `g${group}`;
    const entry = snapshot.groups[g];
    if (!entry) {
      wrong.push(`${g} is missing`);
      continue;
    }
    const initialOp = group % 2 === 0 ? "OR" : "AND";
    if (entry.op === initialOp) wrong.push(`${g} still joins with ${initialOp}`);
    // One rule added, two removed.
    if (entry.rules.length !== COMPARE_PER_GROUP - 1) wrong.push(`${g} has ${entry.rules.length} rules`);
    for (const rule of [REMOVED_RULE, REMOVED_BY_KEY_RULE])
      if (entry.rules.includes(`${g}c${rule}`)) wrong.push(`${g}c${rule} is still there`);
    const added = entry.rules[entry.rules.length - 1] ?? "";
    if (/^g\d+c\d+$/.test(added) || !(added in snapshot.rules))
      wrong.push(`${g} has no rule added at its end`);
    const typed = snapshot.rules[`${g}c${TYPED_RULE}`];
    const expected = `Country ${group}.${TYPED_RULE}${TYPED}`;
    if (typed?.value !== expected) wrong.push(`${g}c${TYPED_RULE} holds ${JSON.stringify(typed?.value)}`);
    if (typed?.operator !== "ne") wrong.push(`${g}c${TYPED_RULE} compares with ${typed?.operator}`);
  }
  const total = Object.values(snapshot.rules).length;
  const expectedTotal = COMPARE_GROUPS * COMPARE_PER_GROUP - groups.length;
  if (total !== expectedTotal) wrong.push(`${total} rules in all, not ${expectedTotal}`);
  return wrong;
}

interface Sample {
  /** To the last commit painted in the frame of the edit's own commit: the edit as first seen. */
  shown: number;
  /** To the edit's last commit (follow-up commits included, whenever they ran). */
  settled: number;
  /** React's render time over all of the edit's commits. */
  actual: number;
  /** To the end of the frame that shows the edit. */
  frame: number;
}

function samplesOf(edits: CompareState["edits"], kind: string): { samples: Sample[]; missing: number } {
  const samples: Sample[] = [];
  let missing = 0;
  for (const edit of edits.filter((e) => e.kind === kind)) {
    const t0 = edit.t0;
    // Commits before the event (a menu item highlighted on hover) are not the edit's.
    const commits = t0 === undefined ? [] : edit.commits.filter((c) => c.at >= t0);
    // The edit's own commit: the first with the changed tree (not a menu closing before it).
    const own = commits.find((c) => c.version > edit.versionAtBegin);
    if (t0 === undefined || own === undefined) {
      missing += 1;
      continue;
    }
    // With it, whatever else was committed before its frame (a validation mark, focus moved).
    const frameAt = own.raf ?? Number.POSITIVE_INFINITY;
    const inFrame = commits.filter((c) => c.at <= frameAt);
    const frames = edit.frames.filter((at) => at >= own.at);
    samples.push({
      shown: Math.max(...inFrame.map((c) => c.at)) - t0,
      settled: Math.max(...commits.map((c) => c.at)) - t0,
      actual: commits.reduce((sum, c) => sum + c.actual, 0),
      frame: frames.length > 0 ? Math.min(...frames) - t0 : Number.NaN,
    });
  }
  return { samples, missing };
}

export interface CompareResult {
  lines: string[];
  /** Median over all edits, event to commit (shown), ours and react-querybuilder's. */
  ours: number;
  rqb: number;
  /** Per edit kind: ours / react-querybuilder at the median, event to commit (shown). */
  ratios: Record<Kind, number>;
  pass: boolean;
  summary: string;
}

export async function compareEditors(browser: Browser, compareUrl: string): Promise<CompareResult> {
  const tabs: Tab[] = [];
  const contexts = [];
  try {
    for (const id of ["ours", "rqb"] as const) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(context);
      context.setDefaultTimeout(30_000);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`${message.text()} (${message.location().url})`);
      });
      await page.goto(`${compareUrl}?editor=${id}&groups=${COMPARE_GROUPS}&per=${COMPARE_PER_GROUP}`);
      await page.waitForFunction(() => (window as unknown as { __cmp?: CompareState }).__cmp?.ready);
      tabs.push({ id, page, errors });
    }
    await sleep(500);

    const rounds = ROUND_GROUPS.slice(0, Math.min(ROUNDS, ROUND_GROUPS.length));
    const script: Kind[] = KINDS.map((k) => k.kind);
    // A warm-up round on another group (code paths compiled, first menu mounted), not counted.
    for (const kind of script) for (const t of tabs) await step(t, kind, WARMUP_GROUP);
    for (const t of tabs)
      await t.page.evaluate(() => (window as unknown as { __cmp: CompareState }).__cmp.reset());

    for (const [round, group] of rounds.entries()) {
      const order = round % 2 === 0 ? tabs : [...tabs].reverse();
      for (const kind of script) for (const t of order) await step(t, kind, group);
    }

    const results = new Map<EditorId, { edits: CompareState["edits"]; wrong: string[] }>();
    for (const t of tabs) {
      const { edits, snapshot } = await t.page.evaluate(() => {
        const cmp = (window as unknown as { __cmp: CompareState }).__cmp;
        return { edits: cmp.edits, snapshot: cmp.snapshot() };
      });
      const wrong = checkSnapshot(snapshot, [WARMUP_GROUP, ...rounds]);
      if (t.errors.length > 0) wrong.push(`page errors: ${t.errors.slice(0, 3).join("; ")}`);
      results.set(t.id, { edits, wrong });
    }
    return report(results, rounds.length);
  } finally {
    for (const context of contexts) await context.close().catch(() => {});
  }
}

function report(
  results: Map<EditorId, { edits: CompareState["edits"]; wrong: string[] }>,
  rounds: number,
): CompareResult {
  const ours = results.get("ours")!;
  const rqb = results.get("rqb")!;
  const values = (samples: Sample[], key: keyof Sample) =>
    samples.map((s) => s[key]).filter((v) => Number.isFinite(v));
  const cell = (samples: Sample[], key: keyof Sample) => {
    const v = values(samples, key);
    return `${fmt(median(v))} / ${fmt(p95(v))}`;
  };
  const ratioOf = (a: Sample[], b: Sample[], key: keyof Sample) =>
    median(values(a, key)) / median(values(b, key));
  const row = (label: string, a: Sample[], b: Sample[]) => [
    label,
    `${a.length} + ${b.length}`,
    cell(a, "shown"),
    cell(b, "shown"),
    ratioOf(a, b, "shown").toFixed(2),
    cell(a, "settled"),
    cell(b, "settled"),
    cell(a, "actual"),
    cell(b, "actual"),
    cell(a, "frame"),
    cell(b, "frame"),
  ];
  const rows: string[][] = [];
  const ratios = {} as Record<Kind, number>;
  const all = { ours: [] as Sample[], rqb: [] as Sample[] };
  let missing = 0;
  for (const { kind, label } of KINDS) {
    const a = samplesOf(ours.edits, kind);
    const b = samplesOf(rqb.edits, kind);
    missing += a.missing + b.missing;
    all.ours.push(...a.samples);
    all.rqb.push(...b.samples);
    ratios[kind] = ratioOf(a.samples, b.samples, "shown");
    rows.push(row(label, a.samples, b.samples));
  }
  rows.push(row("all edits", all.ours, all.rqb));
  // Opening the menu changes no tree: to its last commit.
  const menu = ours.edits.flatMap((e) => {
    const t0 = e.t0;
    const commits = t0 === undefined ? [] : e.commits.filter((c) => c.at >= t0);
    return e.kind === "menu" && t0 !== undefined && commits.length > 0
      ? [Math.max(...commits.map((c) => c.at)) - t0]
      : [];
  });

  const oursMedian = median(values(all.ours, "shown"));
  const rqbMedian = median(values(all.rqb, "shown"));
  const settledRatio = ratioOf(all.ours, all.rqb, "settled");
  const stateOk = ours.wrong.length === 0 && rqb.wrong.length === 0;
  const pass = stateOk && missing === 0 && oursMedian <= rqbMedian;
  const worse = KINDS.filter((k) => ratios[k.kind] > 1).map((k) => k.kind);
  const summary = `all edits: event to commit ${fmt(oursMedian)} ms (ours) against ${fmt(rqbMedian)} ms (react-querybuilder) at the median, ratio ${(oursMedian / rqbMedian).toFixed(2)} (to the last commit: ${settledRatio.toFixed(2)}); per edit ${KINDS.map((k) => `${k.kind} ${ratios[k.kind].toFixed(2)}`).join(", ")}${stateOk ? "" : "; STATE CHECK FAILED"}${missing ? `; ${missing} edits without a commit` : ""}`;

  const lines = [
    `Our editor against react-querybuilder 8.24.1 (its default controls and stylesheet, controlled with query + onQueryChange): compare page (tests/bench/editor-harness/compare.tsx), production build with react-dom/profiling, one Chromium, one tab each, the same ${COMPARE_GROUPS} x ${COMPARE_PER_GROUP} tree (our tree converted to RuleGroupType, the same fields and comparisons), ${rounds} rounds of the same script on a group each (after one warm-up round), interleaved step by step with the first editor alternating: ${TYPED.length} keystrokes at the end of a value, its comparison changed (focused select, ArrowDown), a rule added (button), two rules removed (ours: Delete in the row's actions menu, then Ctrl+Backspace on another row; react-querybuilder: its x button), the group's AND / OR switched (from the keyboard: our radio group's arrow, their select's arrow). Ms, median / p95:`,
    "",
    table(
      [
        "edit",
        "samples",
        "event to commit, ours",
        "react-querybuilder",
        "ratio",
        "to last commit, ours",
        "react-querybuilder",
        "React render, ours",
        "react-querybuilder",
        "to its frame, ours",
        "react-querybuilder",
      ],
      rows,
    ),
    "",
    `"Event to commit": from the moment the edit's event (keydown, click) reached the page's first listener to the Profiler's onRender of the last commit painted with the edit: its own commit (the first that renders the changed tree) and any other before that frame (ours moves focus to the added rule, or to the next one after a delete, and closes the menu it deleted from: all in). "To last commit": to the edit's last commit however late: ours has one more after adding or deleting a rule, dnd-kit registering or dropping the row's drop target from a passive effect at default priority, which React may run after the browser has painted the edit. "React render": actualDuration summed over all the edit's commits. "Frame": a task posted from the animation frame after the edit's own commit (style, layout and paint done). Opening our row's actions menu before deleting (not an edit, not counted above): ${fmt(median(menu))} / ${fmt(p95(menu))} ms to commit.`,
    `State after the script: ours ${ours.wrong.length === 0 ? "as expected" : `WRONG (${ours.wrong.slice(0, 4).join("; ")})`}; react-querybuilder ${rqb.wrong.length === 0 ? "as expected" : `WRONG (${rqb.wrong.slice(0, 4).join("; ")})`} (every round's value typed, comparison changed, rule added, two rules removed, AND / OR switched; ${COMPARE_GROUPS * COMPARE_PER_GROUP - rounds - 1} rules in all).`,
    worse.length > 0
      ? `Edits where ours is slower at the median: ${worse.join(", ")}.`
      : "Ours is no slower at the median on any edit.",
  ];
  return { lines, ours: oursMedian, rqb: rqbMedian, ratios, pass, summary };
}
