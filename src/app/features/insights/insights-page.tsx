import { ComingSoon, Page } from "../../ui/page";

export function InsightsPage() {
  return (
    <Page title="Insights" lead="See who is in an audience before you buy it.">
      <ComingSoon
        items={[
          "A summary of the audience: how many people, how many with an email or a mobile, and across how many companies.",
          "A breakdown by one field, such as seniority, country or industry: the top values with their counts, and everyone else.",
          "The top values of several fields side by side, to spot a filter that is too wide or too narrow.",
        ]}
      />
    </Page>
  );
}
