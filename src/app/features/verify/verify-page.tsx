import { ComingSoon, Page } from "../../ui/page";

export function VerifyPage() {
  return (
    <Page title="Verify" lead="Check that email addresses will receive mail before you send to them.">
      <ComingSoon
        items={[
          "Verify one address at once: valid, invalid or unknown, and whether it is a role address such as sales@.",
          "Upload a list as a batch job, follow its progress, cancel it if needed, and download the results as CSV.",
          "Only definite answers cost credits; the price is shown before a batch starts.",
        ]}
      />
    </Page>
  );
}
