import { useState } from "react";
import { Card } from "../../ui/card";
import { LoadFailedAlert, LoadingNote } from "../../ui/status";
import { AddPersonForm } from "./add-person-form";
import { usePeople } from "./api/people";
import { PersonRow } from "./person-row";

/** The team's people with their roles and who added them, and the form to add one. */
export function PeopleCard({ me }: { me: string | null }) {
  const people = usePeople();
  const [said, setSaid] = useState("");
  const list = people.data?.people ?? [];
  return (
    <Card title="People" className="team-wide">
      {people.isPending ? (
        <LoadingNote what="the team" />
      ) : people.isError ? (
        <LoadFailedAlert
          what="the team"
          error={people.error}
          onRetry={() => void people.refetch()}
          className="team-alert"
        />
      ) : (
        <div className="team-table-wrap">
          <table className="list-table team-table">
            <caption className="visually-hidden">The team's people, their roles and who added them</caption>
            <thead>
              <tr>
                <th scope="col" className="team-col-name">
                  Name
                </th>
                <th scope="col" className="team-col-role">
                  Role
                </th>
                <th scope="col" className="team-col-added">
                  Added
                </th>
                <th scope="col" className="team-col-changes">
                  <span className="visually-hidden">Changes</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((person) => (
                <PersonRow
                  key={person.name}
                  person={person}
                  me={me}
                  onRemoved={(name) => setSaid(`${name} was removed from the team and signed out.`)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="team-done" aria-live="polite">
        {said}
      </p>
      <AddPersonForm
        me={me}
        first={false}
        onAdded={(name) => setSaid(`${name} was added to the team.`)}
        onChanged={() => setSaid("")}
      />
    </Card>
  );
}
