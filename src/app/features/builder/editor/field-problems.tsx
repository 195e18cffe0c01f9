import type { ReactNode } from "react";

/**
 * A node's reasons for one field, shown beside it and linked with `aria-describedby`. A function,
 * not a component: most fields have no reasons, and 300 rows would keep some 1,200 empty fibers.
 */
export function fieldProblems(id: string, reasons: readonly string[] | undefined): ReactNode {
  if (!reasons || reasons.length === 0) return null;
  return (
    <ul id={id} className="fe-problems">
      {reasons.map((reason) => (
        <li key={reason}>{reason}</li>
      ))}
    </ul>
  );
}
