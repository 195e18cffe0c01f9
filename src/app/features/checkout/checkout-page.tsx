import { ComingSoon, Page } from "../../ui/page";

export function CheckoutPage() {
  return (
    <Page title="Checkout" lead="Turn an audience into contact data you can use, knowing the price first.">
      <ComingSoon
        items={[
          "Estimate an export before buying it: how many rows, how many have an email or a mobile, the credits it costs and whether your balance covers it.",
          "Choose what to reveal (email, mobile, both or neither) and the most rows you want.",
          "Export to a CSV file and follow it until it is ready to download, or enrich chosen people straight away.",
          "Never pay twice: every purchase carries its own key, so a retry after a dropped connection is charged once.",
        ]}
      />
    </Page>
  );
}
