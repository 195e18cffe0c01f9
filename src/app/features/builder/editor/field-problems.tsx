/** A node's reasons for one field, shown beside it and linked with `aria-describedby`. */
export function FieldProblems({ id, reasons }: { id: string; reasons: readonly string[] | undefined }) {
  if (!reasons || reasons.length === 0) return null;
  return (
    <ul id={id} className="fe-problems">
      {reasons.map((reason) => (
        <li key={reason}>{reason}</li>
      ))}
    </ul>
  );
}
