import { formatRelative } from "../../lib/format";

/**
 * Under one audience, the last purchase of another: not shown as this audience's, but said, and one
 * click away (it was paid for).
 */
export function OtherAudienceNote({
  what,
  audience,
  at,
  onShow,
}: {
  /** "export", "preview". */
  what: string;
  /** The other audience's name or description, when known. */
  audience: string | undefined;
  /** When it was bought (ISO). */
  at: string;
  onShow: () => void;
}) {
  return (
    <p className="notice-info checkout-other-audience" role="status">
      Your last {what} was of another audience{audience ? ` (${audience})` : ""},{" "}
      {formatRelative(at, new Date())}.{" "}
      <button type="button" className="button button-quiet" onClick={onShow}>
        Show it
      </button>
    </p>
  );
}
