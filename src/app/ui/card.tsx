import { type ReactNode, useId } from "react";
import "./card.css";

/**
 * A titled card of the Account, Team, Spending and Suppression screens: a section named by its
 * heading, what acts on the whole card (Refresh, Download) at the heading's end, its parts spaced
 * evenly below.
 */
export function Card({
  title,
  aside,
  className,
  children,
}: {
  title: ReactNode;
  /** At the end of the heading's line: a button or a link for the whole card. */
  aside?: ReactNode;
  /** The screen's own classes (its grid placement). */
  className?: string;
  children: ReactNode;
}) {
  const titleId = `${useId()}-title`;
  const heading = (
    <h2 className="card-title" id={titleId}>
      {title}
    </h2>
  );
  return (
    <section
      className={className ? `card card-stack ${className}` : "card card-stack"}
      aria-labelledby={titleId}
    >
      {aside ? (
        <div className="card-head">
          {heading}
          {aside}
        </div>
      ) : (
        heading
      )}
      {children}
    </section>
  );
}
