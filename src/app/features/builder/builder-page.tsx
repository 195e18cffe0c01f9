import { ComingSoon, Page } from "../../ui/page";

export function BuilderPage() {
  return (
    <Page
      title="Builder"
      lead="Describe the people you want to reach and see how many there are, before you spend anything."
    >
      <ComingSoon
        items={[
          "Combine rules on any contact or company field (job title, seniority, country, industry, company size) into AND / OR groups, nested as deep as you need.",
          "Match job titles and companies by meaning as well as by text, from exact to broad, and find people at companies like one you know.",
          "Show a live count of matching people as you edit, and a free masked sample of them: emails and mobiles stay hidden until you buy.",
          "Read the filter back in plain English, undo and redo every change, and do all of it from the keyboard.",
        ]}
      />
    </Page>
  );
}
