import { zodResolver } from "@hookform/resolvers/zod";
import { type FormEvent, useId } from "react";
import { useForm, useWatch } from "react-hook-form";
import { addPersonBody, ROLE_WORDS, ROLES, type Role } from "../../../contract/team";
import { ROLE_NAMES } from "../../lib/roles";
import { Field } from "../../ui/field";
import { useAddPerson } from "./api/people";
import { teamRefusal } from "./team-words";

/** In local mode the first person must be an admin: someone has to manage the team after. */
const firstPersonSchema = addPersonBody.refine((body) => body.role === "admin", {
  path: ["role"],
  message: "The first person must be an admin: from then on someone has to manage the team.",
});

interface AddForm {
  name: string;
  role: Role;
  password: string;
}

/**
 * Adds a person: name, role and the password they first sign in with, checked with the contract's
 * own schemas (the proxy checks them again). `first`: local mode, where this person is the first
 * and must be an admin.
 */
export function AddPersonForm({
  me,
  first,
  onAdded,
  onChanged,
}: {
  me: string | null;
  first: boolean;
  onAdded?: (name: string) => void;
  /** The form changed or is submitted again: an earlier outcome shown beside it is stale. */
  onChanged?: () => void;
}) {
  const id = useId();
  const add = useAddPerson(me);
  const form = useForm<AddForm>({
    resolver: zodResolver(first ? firstPersonSchema : addPersonBody),
    defaultValues: { name: "", role: first ? "admin" : "analyst", password: "" },
  });
  const { errors } = form.formState;
  // Only the latest outcome shows: an earlier refusal (or the card's "was added") is stale as soon
  // as the form changes or is submitted again.
  const forget = () => {
    if (add.isError) add.reset();
    onChanged?.();
  };
  const validateAndAdd = form.handleSubmit((values) => {
    add.mutate(values, {
      onSuccess: (person) => {
        form.reset({ name: "", role: values.role, password: "" });
        onAdded?.(person.name);
      },
    });
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    forget();
    return validateAndAdd(event);
  };
  const typedName = form.getValues("name").trim() || "that person";
  const role = useWatch({ control: form.control, name: "role" });

  return (
    <form
      className="form team-add-form"
      onSubmit={submit}
      onChange={forget}
      noValidate
      aria-labelledby={`${id}-title`}
    >
      <h3 className="team-subtitle" id={`${id}-title`}>
        {first ? "Add the first admin" : "Add a person"}
      </h3>
      <div className="team-add-fields">
        <Field
          label="Name"
          hint="The name to sign in with: letters, digits, dots, dashes, underscores or @."
          error={errors.name?.message}
        >
          {(control) => (
            <input
              {...control}
              className="input"
              autoComplete="off"
              spellCheck={false}
              maxLength={64}
              {...form.register("name")}
            />
          )}
        </Field>
        <Field label="Role" hint={`${ROLE_WORDS[role]}.`} error={errors.role?.message} errorReplacesHint>
          {(control) => (
            <select {...control} className="input" {...form.register("role")}>
              {ROLES.map((role) => (
                <option key={role} value={role} disabled={first && role !== "admin"}>
                  {ROLE_NAMES[role]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="First password"
          hint="At least 8 characters. Give it to them yourself; an admin can reset it later."
          error={errors.password?.message}
        >
          {(control) => (
            <input
              {...control}
              className="input"
              type="password"
              autoComplete="new-password"
              maxLength={1024}
              {...form.register("password")}
            />
          )}
        </Field>
      </div>
      {add.isError ? (
        <p className="alert team-alert" role="alert">
          {teamRefusal(add.error, "add", add.variables?.name ?? typedName)}
        </p>
      ) : null}
      <div className="team-actions">
        <button type="submit" className="button button-primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : first ? "Add the first admin" : "Add to the team"}
        </button>
      </div>
    </form>
  );
}
