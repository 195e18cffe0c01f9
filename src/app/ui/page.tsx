import { type ReactNode, useEffect, useRef } from "react";

export const PRODUCT_NAME = "Audience Builder";

/**
 * Every screen's frame: the document title, one `h1` (focused after a client-side navigation, so a
 * screen reader announces the new page), an optional lead sentence, then the content.
 */
export function Page({ title, lead, children }: { title: string; lead?: ReactNode; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // A fresh page load leaves focus on the body: keep it there. After a navigation focus sits on
    // the link (or button) that caused it: move it to the new page's heading.
    const active = document.activeElement;
    if (active && active !== document.body) heading.current?.focus();
  }, []);
  return (
    <div className="page">
      <title>{`${title} · ${PRODUCT_NAME}`}</title>
      <header className="page-header">
        <h1 className="page-title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {lead ? <p className="page-lead">{lead}</p> : null}
      </header>
      {children}
    </div>
  );
}
