/**
 * Said when the browser would not keep a spend's journal (privacy mode, a full storage): the spend
 * is still safe from double clicks and retries on this page, but a reload would lose its key.
 */
export function NotKeptNote({ what, until, className }: { what: string; until: string; className: string }) {
  return (
    <p className={className}>
      This browser would not keep {what} in its storage: keep this page open until {until}.
    </p>
  );
}
