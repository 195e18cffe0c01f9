import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useLocation, useParams } from "wouter";
import { AUDIENCE_ID } from "../../contract/team";
import { getAudience, isMissingAudience } from "../api/audiences";
import { openAudienceOf, openAudienceStore } from "../lib/open-audience";
import { browserStorage } from "../lib/store";
import { placeWorkingTree } from "../lib/working-tree";
import { Page } from "../ui/page";
import { ErrorPanel, LoadingPanel } from "../ui/status";
import "./audience-link-page.css";

/**
 * A saved audience's short link, `/a/<id>`: reads the audience (GET /api/audiences/:id), makes it
 * the working tree and the open audience, and goes to the Builder. A 404 says in plain words that
 * it does not exist or is private.
 */
export function AudienceLinkPage() {
  const { id = "" } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const [placeError, setPlaceError] = useState<string | null>(null);
  const audience = useQuery({
    queryKey: ["audiences", id, "link"],
    queryFn: ({ signal }) => getAudience(id, { signal }),
    staleTime: 0,
    gcTime: 0,
    // An id no audience can have is not sent: it is simply not found.
    enabled: AUDIENCE_ID.test(id),
  });
  const malformed = !AUDIENCE_ID.test(id);

  useEffect(() => {
    if (!audience.data) return;
    const placed = placeWorkingTree(browserStorage(), audience.data.filter);
    if (!placed.ok) {
      setPlaceError(`“${audience.data.name}” could not be opened: ${placed.error}`);
      return;
    }
    openAudienceStore().set(openAudienceOf(audience.data));
    navigate(placed.href, { replace: true });
  }, [audience.data, navigate]);

  if (malformed || (audience.error && isMissingAudience(audience.error)))
    return (
      <Page title="Audience not found" lead="This link does not open an audience you can see.">
        <p className="notice-warning audience-link-notice audience-link-missing" role="alert">
          There is no saved audience at this link, or it is private to the person who saved it (or was
          deleted). Ask them to share it with the team, then open the link again.
        </p>
        <p>
          <Link href="/">Go to the Builder</Link>
        </p>
      </Page>
    );
  if (audience.error)
    return (
      <Page title="Opening a saved audience">
        <ErrorPanel
          title="The audience could not be opened"
          error={audience.error}
          onRetry={() => void audience.refetch()}
        />
      </Page>
    );
  if (placeError)
    return (
      <Page title="Opening a saved audience">
        <p className="notice-warning audience-link-notice" role="alert">
          {placeError}
        </p>
      </Page>
    );
  return <LoadingPanel label="Opening the saved audience…" />;
}
