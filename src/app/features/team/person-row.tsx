import { useId, useState } from "react";
import { type Person, passwordSchema, ROLES, type Role } from "../../../contract/team";
import { formatDateTime } from "../../lib/format";
import { CLI_PERSON_NAME, LOCAL_PERSON_NAME, ROLE_NAMES } from "../../lib/roles";
import { ConfirmButtons } from "../../ui/confirm-buttons";
import { Field } from "../../ui/field";
import { useChangePerson, useRemovePerson } from "./api/people";
import { teamRefusal } from "./team-words";

type Editing = null | "role" | "password" | "remove";

/** The row's three changes, each opening its own confirmation under the row. */
const ROW_ACTIONS: { edit: Exclude<Editing, null>; label: string; hidden: string; className: string }[] = [
  { edit: "role", label: "Change role", hidden: " of ", className: "button button-secondary" },
  { edit: "password", label: "Reset password", hidden: " of ", className: "button button-secondary" },
  { edit: "remove", label: "Remove", hidden: " ", className: "button button-quiet team-danger" },
];

/** When and by whom a person was added, in words. */
function addedText(person: Person): string {
  const when = formatDateTime(person.createdAt);
  if (person.source === "file") return `Listed in the users file · ${when}`;
  if (person.createdBy === LOCAL_PERSON_NAME) return `Added before anyone signed in · ${when}`;
  if (person.createdBy === CLI_PERSON_NAME || person.createdBy === null)
    return `Added on the server with npm run users · ${when}`;
  return `Added by ${person.createdBy} · ${when}`;
}

/**
 * One person: name, role, who added them and when, and the three changes an admin can make (role,
 * password, removal), each opened below the row and confirmed there. Role changes and removals end
 * that person's sessions at once, which the confirm says. People of the users file are changed in
 * that file, which the row says instead of offering buttons the proxy would refuse.
 */
export function PersonRow({
  person,
  me,
  onRemoved,
}: {
  person: Person;
  me: string | null;
  /** The row is gone once the list is read again: the card says it was removed. */
  onRemoved: (name: string) => void;
}) {
  const id = useId();
  const [editing, setEditing] = useState<Editing>(null);
  const [role, setRole] = useState<Role>(person.role);
  const [password, setPassword] = useState("");
  const [passwordProblem, setPasswordProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const change = useChangePerson(me);
  const remove = useRemovePerson(me);
  const isMe = person.name === me;
  const fromFile = person.source === "file";
  const who = isMe ? "you" : person.name;

  const open = (what: Editing) => {
    change.reset();
    remove.reset();
    setDone(null);
    setRole(person.role);
    setPassword("");
    setPasswordProblem(null);
    setEditing(what);
  };

  const saveRole = () =>
    change.mutate(
      { name: person.name, body: { role } },
      {
        onSuccess: () => {
          setEditing(null);
          setDone(`${isMe ? "Your" : `${person.name}'s`} role is now ${ROLE_NAMES[role]}.`);
        },
      },
    );
  const savePassword = () => {
    const checked = passwordSchema.safeParse(password);
    if (!checked.success) {
      setPasswordProblem(checked.error.issues[0]?.message ?? "Choose another password.");
      return;
    }
    setPasswordProblem(null);
    change.mutate(
      { name: person.name, body: { password } },
      {
        onSuccess: () => {
          setEditing(null);
          setPassword("");
          setDone(`The password of ${person.name} is reset: give them the new one.`);
        },
      },
    );
  };
  const doRemove = () => remove.mutate(person.name, { onSuccess: () => onRemoved(person.name) });

  const error = change.error ?? remove.error;
  const action = remove.isError ? "remove" : editing === "password" ? "password" : "role";

  return (
    <tr className="team-person" data-person={person.name}>
      <th scope="row" className="team-person-name">
        <span>{person.name}</span>
        {isMe ? <span className="muted"> (you)</span> : null}
      </th>
      <td>
        <span className="badge team-role" data-role={person.role}>
          {ROLE_NAMES[person.role]}
        </span>
      </td>
      <td className="muted team-added">{addedText(person)}</td>
      <td>
        <div className="team-person-actions">
          {fromFile ? (
            <span className="hint-text">Changed in the server's users file, not here.</span>
          ) : (
            <div className="team-actions">
              {ROW_ACTIONS.map(({ edit, label, hidden, className }) => (
                <button
                  key={edit}
                  type="button"
                  className={className}
                  aria-expanded={editing === edit}
                  aria-controls={`${id}-edit`}
                  onClick={() => open(editing === edit ? null : edit)}
                >
                  {label}
                  <span className="visually-hidden">
                    {hidden}
                    {person.name}
                  </span>
                </button>
              ))}
            </div>
          )}
          <div id={`${id}-edit`} className="team-edit">
            {editing === "role" ? (
              <fieldset className="team-confirm">
                <legend className="visually-hidden">{`Change the role of ${person.name}`}</legend>
                <Field
                  label={`New role for ${person.name}`}
                  hint={`This signs ${who} out at once, on every device; ${isMe ? "you sign" : "they sign"} in again with the new role.`}
                >
                  {(control) => (
                    <select
                      {...control}
                      className="input"
                      value={role}
                      onChange={(event) => setRole(event.target.value as Role)}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {ROLE_NAMES[r]}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
                <ConfirmButtons
                  className="team-actions"
                  label={`Make ${person.name} ${ROLE_NAMES[role].toLowerCase()}`}
                  busyLabel="Changing…"
                  busy={change.isPending}
                  disabled={role === person.role}
                  onConfirm={saveRole}
                  onCancel={() => setEditing(null)}
                />
              </fieldset>
            ) : null}
            {editing === "password" ? (
              <fieldset className="team-confirm">
                <legend className="visually-hidden">{`Reset the password of ${person.name}`}</legend>
                <Field
                  label={`New password for ${person.name}`}
                  hint="At least 8 characters. Their old password stops working."
                  error={passwordProblem}
                  errorReplacesHint
                >
                  {(control) => (
                    <input
                      {...control}
                      className="input"
                      type="password"
                      autoComplete="new-password"
                      maxLength={1024}
                      value={password}
                      onChange={(event) => setPassword(event.target.value)}
                    />
                  )}
                </Field>
                <ConfirmButtons
                  className="team-actions"
                  label="Reset the password"
                  busyLabel="Resetting…"
                  busy={change.isPending}
                  onConfirm={savePassword}
                  onCancel={() => setEditing(null)}
                />
              </fieldset>
            ) : null}
            {editing === "remove" ? (
              <fieldset className="team-confirm">
                <legend className="visually-hidden">{`Remove ${person.name}`}</legend>
                <p>
                  Remove {isMe ? "yourself" : person.name} from the team? This ends {isMe ? "your" : "their"}{" "}
                  sessions at once: {isMe ? "you are" : "they are"} signed out everywhere and can no longer
                  sign in. The audiences {isMe ? "you" : "they"} saved, private and shared, pass to{" "}
                  {isMe ? "the longest-standing other admin" : "you"}.
                </p>
                <ConfirmButtons
                  className="team-actions"
                  label={`Yes, remove ${person.name}`}
                  busyLabel="Removing…"
                  busy={remove.isPending}
                  danger
                  onConfirm={doRemove}
                  cancelLabel={`Keep ${isMe ? "me" : person.name}`}
                  onCancel={() => setEditing(null)}
                />
              </fieldset>
            ) : null}
          </div>
          <div aria-live="polite">
            {error ? (
              <p className="team-field-error" role="alert">
                {teamRefusal(error, action, person.name)}
              </p>
            ) : done ? (
              <p className="team-done">{done}</p>
            ) : null}
          </div>
        </div>
      </td>
    </tr>
  );
}
