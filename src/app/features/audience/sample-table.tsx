import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  type RowSelectionState,
  type Updater,
  useReactTable,
} from "@tanstack/react-table";
import { useEffect, useMemo, useRef } from "react";
import { labelOf } from "../../../contract/columns";
import type { ViewResponse } from "../../../contract/operations";
import { formatNumber } from "../../lib/format";
import {
  addToSelection,
  removeFromSelection,
  type SelectionAudience,
  type SelectionSnapshot,
} from "../../lib/selection";
import { LEFT_MARK } from "../../lib/selection-check";
import "../../ui/records-table.css";
import "./sample-table.css";

type SampleRow = ViewResponse["rows"][number];

export function rowIdOf(row: SampleRow, index = 0): string {
  const id = row.RBID_PAO;
  return typeof id === "string" || typeof id === "number" ? String(id) : `row-${index}`;
}

/** Text of a returned value: numbers grouped (years as they are), nothing as an em dash. */
function valueText(field: string, value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number") return field === "FOUNDED_ORG" ? String(value) : formatNumber(value);
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** `✓ Email` / `— No email`: an icon with its words, so colour and shape are never the only cue. */
function Flag({ on, what }: { on: boolean; what: "email" | "mobile" }) {
  const word = what === "email" ? "Email" : "Mobile";
  return on ? (
    <span className="sample-flag" data-on="true">
      <span aria-hidden="true">✓</span> {word}
    </span>
  ) : (
    <span className="sample-flag" data-on="false">
      <span aria-hidden="true">—</span> No {word.toLowerCase()}
    </span>
  );
}

/** A similarity score in [0, 1] as a percentage; none for rows matched by no similarity rule. */
export function formatScore(score: unknown): string | null {
  if (typeof score !== "number" || !Number.isFinite(score)) return null;
  return `${Math.round(score * 100)}%`;
}

function Cell({ field, value }: { field: string; value: unknown }) {
  if (field === "hasEmail" || field === "hasMobile")
    return <Flag on={value === true} what={field === "hasEmail" ? "email" : "mobile"} />;
  const text = field === "score" ? formatScore(value) : valueText(field, value);
  if (text === null)
    return (
      <span className="sample-empty-value">
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">none</span>
      </span>
    );
  return <span className={field === "RBID_PAO" ? "mono" : undefined}>{text}</span>;
}

function Checkbox({
  checked,
  indeterminate = false,
  label,
  onChange,
}: {
  checked: boolean;
  indeterminate?: boolean;
  label: string;
  onChange: (checked: boolean) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className="sample-checkbox"
      checked={checked}
      aria-label={label}
      onChange={(event) => onChange(event.target.checked)}
    />
  );
}

/** How a row is named to a screen reader: the person's name, else the id. */
function rowName(row: SampleRow, index: number): string {
  const name = row.FULL_NAME_PER;
  return typeof name === "string" && name !== "" ? name : rowIdOf(row, index);
}

/**
 * The sample's rows (TanStack Table): the answer's columns with its labels, flags as icon and
 * words, the score as a percentage, and a checkbox per row whose state lives in the shared
 * selection store (the audience's, keyed by RBID_PAO), so that the selection outlives this sample.
 */
export function SampleTable({
  body,
  audience,
  selection,
  left,
  caption,
  dimmed,
  showId = true,
}: {
  body: ViewResponse;
  /** The audience the ticks belong to. */
  audience: SelectionAudience;
  selection: SelectionSnapshot;
  /** Selected people no longer in the audience (a sample shown while a new one is taken). */
  left: ReadonlySet<string>;
  caption: string;
  dimmed: boolean;
  /** Show the contact id column (always in the answer: rows are selected by it). */
  showId?: boolean;
}) {
  const rows = body.rows;
  const shown = useMemo(
    () => (showId ? body.columns : body.columns.filter((field) => field !== "RBID_PAO")),
    [body.columns, showId],
  );
  const columns = useMemo<ColumnDef<SampleRow>[]>(
    () => [
      {
        id: "select",
        header: ({ table }) => (
          <Checkbox
            checked={table.getIsAllRowsSelected()}
            indeterminate={table.getIsSomeRowsSelected()}
            label="Select every row of this sample"
            onChange={(on) => table.toggleAllRowsSelected(on)}
          />
        ),
        cell: ({ row }) => (
          <Checkbox
            checked={row.getIsSelected()}
            label={`Select ${rowName(row.original, row.index)}`}
            onChange={(on) => row.toggleSelected(on)}
          />
        ),
      },
      ...shown.map<ColumnDef<SampleRow>>((field) => ({
        id: field,
        accessorFn: (row) => row[field],
        header: body.columnLabels[field] ?? labelOf(field),
        cell: ({ getValue }) => <Cell field={field} value={getValue()} />,
      })),
    ],
    [shown, body.columnLabels],
  );

  const rowSelection = useMemo<RowSelectionState>(() => {
    const state: RowSelectionState = {};
    rows.forEach((row, index) => {
      const id = rowIdOf(row, index);
      if (selection.has.has(id)) state[id] = true;
    });
    return state;
  }, [rows, selection]);

  const onRowSelectionChange = (updater: Updater<RowSelectionState>) => {
    const next = typeof updater === "function" ? updater(rowSelection) : updater;
    const add: string[] = [];
    const remove: string[] = [];
    rows.forEach((row, index) => {
      const id = rowIdOf(row, index);
      const on = next[id] === true;
      if (on && !selection.has.has(id)) add.push(id);
      else if (!on && selection.has.has(id)) remove.push(id);
    });
    if (remove.length > 0) removeFromSelection(audience, remove);
    if (add.length > 0) {
      // The names as shown, so that Checkout's review can say who is who.
      const names = new Map<string, string>();
      rows.forEach((row, index) => {
        const name = row.FULL_NAME_PER;
        if (typeof name === "string" && name !== "") names.set(rowIdOf(row, index), name);
      });
      addToSelection(audience, add, names);
    }
  };

  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row, index) => rowIdOf(row, index),
    enableRowSelection: true,
    state: { rowSelection },
    onRowSelectionChange,
  });

  return (
    // A keyboard user scrolls a wide sample sideways by focusing the region.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to be scrolled without a mouse.
    <section className="sample-table-scroll" aria-label={caption} tabIndex={0} data-dimmed={dimmed}>
      <table className="records-table sample-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  className={header.column.id === "select" ? "sample-select-cell" : undefined}
                >
                  {header.isPlaceholder
                    ? null
                    : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-selected={row.getIsSelected()} data-left={left.has(row.id)}>
              {row.getVisibleCells().map((cell, index) => (
                <td
                  key={cell.id}
                  className={
                    cell.column.id === "select" ? "sample-select-cell" : `sample-cell-${cell.column.id}`
                  }
                >
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  {index === 1 && left.has(row.id) ? (
                    <span className="sample-left-mark">{LEFT_MARK}</span>
                  ) : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
