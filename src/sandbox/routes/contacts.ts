import { labelOf, MASK_FLAGS, type MaskFlag } from "../../contract/columns";
import { DEFAULT_VIEW_COLUMNS, ERROR_CODES } from "../../contract/inferred";
import { charge, contactCost, fullRowColumns } from "../billing";
import type { Row } from "../db";
import type { SomeHandlers } from "../http/pipeline";
import type { Audience } from "../query/audience";
import type { StateStore } from "../state/store";
import { resetAtIso, viewRowsLeft } from "../view-budget";

export interface ContactDeps {
  audience: Audience;
  store: StateStore;
  viewBudget: number;
}

/** Columns a View returns: RBID_PAO first; email and mobile become their flags. */
function viewFields(requested: readonly string[] | null | undefined, includeScores: boolean): string[] {
  const flagOf: Record<string, MaskFlag> = { EMAIL_ADDRESS_PER: "hasEmail", CELLPHONE_PER: "hasMobile" };
  const fields = ["RBID_PAO"];
  for (const name of requested && requested.length > 0 ? requested : DEFAULT_VIEW_COLUMNS) {
    const field = flagOf[name] ?? name;
    if (!fields.includes(field)) fields.push(field);
  }
  if (includeScores) fields.push("score");
  return fields;
}

/** The dataset columns behind the returned fields (a flag needs its masked column, read but never sent). */
function sourceColumns(fields: readonly string[]): string[] {
  return fields
    .filter((f) => f !== "score")
    .map((f) => (Object.hasOwn(MASK_FLAGS, f) ? MASK_FLAGS[f as MaskFlag] : f));
}

function project(row: Row, fields: readonly string[], score?: number | null): Row {
  const out: Row = {};
  for (const field of fields) {
    if (field === "score") out.score = score ?? null;
    else if (Object.hasOwn(MASK_FLAGS, field)) out[field] = row[MASK_FLAGS[field as MaskFlag]] != null;
    else out[field] = row[field] ?? null;
  }
  return out;
}

const labels = (fields: readonly string[]) => Object.fromEntries(fields.map((f) => [f, labelOf(f)]));

export function contactHandlers(
  deps: ContactDeps,
): SomeHandlers<"count" | "view" | "preview" | "estimate" | "enrich" | "insights"> {
  const { audience, store } = deps;

  return {
    async count({ c, body }) {
      return c.json({ count: await audience.count(body.filter), mode: body.mode ?? "exact" });
    },

    async view({ c, body, caller }) {
      const key = caller.key;
      const remaining = viewRowsLeft(key, deps.viewBudget);
      if (remaining === 0) {
        c.header("X-FreePreview-Remaining", "0");
        return c.json(
          {
            detail: "The daily free sample budget of this key is used up; it resets at UTC midnight.",
            code: ERROR_CODES.freePreviewCap,
            resetAt: resetAtIso(),
          },
          429,
        );
      }
      const fields = viewFields(body.columns, body.includeScores);
      // Reserve the rows before the query runs, so concurrent Views cannot overspend the budget;
      // what the sample does not use (a small audience, an error) is given back.
      const reserved = Math.min(body.limit, remaining);
      key.viewUsed += reserved;
      let sample: Awaited<ReturnType<Audience["sample"]>>;
      try {
        sample = await audience.sample(body.filter, sourceColumns(fields), reserved);
      } catch (error) {
        key.viewUsed = Math.max(0, key.viewUsed - reserved);
        throw error;
      }
      key.viewUsed = Math.max(0, key.viewUsed - (reserved - sample.length));
      store.saveSoon();
      c.header("X-FreePreview-Remaining", String(Math.max(0, deps.viewBudget - key.viewUsed)));
      return c.json({
        rows: sample.map(({ row, score }) => project(row, fields, score)),
        columns: fields,
        columnLabels: labels(fields),
        rowCount: sample.length,
        limit: body.limit,
      });
    },

    async preview({ c, body, caller }) {
      const columns = fullRowColumns(body.columns, body.reveal);
      const rows = await audience.firstRows(body.filter, columns, body.limit);
      const cost = contactCost(caller.account.plan, body.reveal, figuresOf(rows));
      await charge(store, caller.account, cost);
      return c.json({
        rows: rows.map((r) => project(r, columns)),
        columns,
        columnLabels: labels(columns),
        rowCount: rows.length,
        limit: body.limit,
        creditsCharged: cost,
        creditsRemaining: caller.account.credits,
      });
    },

    async estimate({ c, body, caller }) {
      const figures = await audience.exportFigures(body.filter, body.maxRows);
      const credits = contactCost(caller.account.plan, body.reveal, figures);
      return c.json({
        ...figures,
        credits,
        plan: caller.account.plan,
        balance: caller.account.credits,
        sufficient: credits <= caller.account.credits,
      });
    },

    async enrich({ c, body, caller }) {
      const columns = fullRowColumns(body.columns, body.reveal);
      const personIds: string[] = body.personIds ?? [];
      const emails: string[] = body.emails ?? [];
      const found = await audience.lookup(personIds, emails, columns);
      // Answer in the order asked; a row asked for twice (by id and by email) is delivered once.
      const byId = new Map(found.map((r) => [String(r.RBID_PAO).toLowerCase(), r]));
      const byEmail = new Map(
        found.filter((r) => r.EMAIL_ADDRESS_PER).map((r) => [String(r.EMAIL_ADDRESS_PER), r]),
      );
      const delivered = new Map<string, Row>();
      const notFound: string[] = [];
      for (const id of new Set(personIds)) {
        const row = byId.get(id.trim().toLowerCase());
        if (row) delivered.set(String(row.RBID_PAO), row);
        else notFound.push(id);
      }
      const seenEmails = new Set<string>();
      for (const email of emails) {
        const lower = email.trim().toLowerCase();
        if (seenEmails.has(lower)) continue;
        seenEmails.add(lower);
        const row = byEmail.get(lower);
        if (row) delivered.set(String(row.RBID_PAO), row);
        else notFound.push(email);
      }
      const rows = [...delivered.values()];
      const cost = contactCost(caller.account.plan, body.reveal, figuresOf(rows));
      await charge(store, caller.account, cost);
      return c.json({
        rows: rows.map((r) => project(r, columns)),
        matched: rows.length,
        notFound,
        creditsCharged: cost,
        creditsRemaining: caller.account.credits,
      });
    },

    async insights({ c, body }) {
      if (body.section === "summary")
        return c.json({ section: "summary", ...(await audience.summary(body.filter)) });
      // The request schema refuses a breakdown without groupField and a fields section without fields.
      if (body.section === "breakdown")
        return c.json({
          section: "breakdown",
          groupField: body.groupField!,
          ...(await audience.breakdown(body.filter, body.groupField!)),
        });
      return c.json({ section: "fields", fields: await audience.topValues(body.filter, body.fields!) });
    },
  };
}

function figuresOf(rows: readonly Row[]) {
  return {
    rows: rows.length,
    withEmail: rows.filter((r) => r.EMAIL_ADDRESS_PER != null).length,
    withMobile: rows.filter((r) => r.CELLPHONE_PER != null).length,
  };
}
