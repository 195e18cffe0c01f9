import { type Kysely, type Migration, sql } from "kysely";

/**
 * A person's caps belong to that person: removed from the team, their caps go with them (the
 * database's cascade, whichever way they are removed), so a name added again later inherits none.
 * Caps left behind by a removal before this rule are deleted first.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`delete from person_caps c where not exists (select 1 from users u where u.name = c.name)`.execute(
      db,
    );
    await sql`alter table person_caps add constraint person_caps_person
      foreign key (name) references users (name) on delete cascade`.execute(db);
  },
};
