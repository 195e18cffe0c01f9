import { ComingSoon, Page } from "../../ui/page";

export function CompaniesPage() {
  return (
    <Page
      title="Companies"
      lead="Work at company level: how many companies an audience spans, and which companies resemble one you know."
    >
      <ComingSoon
        items={[
          "Count the companies that match the current filter.",
          "Find lookalikes of a company, by its domain or its id, compared on what the companies do rather than on their names.",
          "Browse the values of company fields (industry, size, country) and turn any of them into a rule.",
        ]}
      />
    </Page>
  );
}
