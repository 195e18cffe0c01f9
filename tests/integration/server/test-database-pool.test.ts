import { describe, expect, it } from "vitest";
import { borrowDatabase, giveBackDatabase } from "../../support/database-pool";

// The test proxies' embedded databases are lent again after a reset: a proxy must never find
// what an earlier one left (people, journal rows, a changed schema), or tests would pass or fail
// by the order they ran in.

async function counts(pglite: Awaited<ReturnType<typeof borrowDatabase>>) {
  const { rows } = await pglite.query<{ users: number; marks: number; ledger: string | null }>(
    `select (select count(*)::int from users) as users, (select count(*)::int from row_marks) as marks,
            (select last_value::text from ledger_id_seq where is_called) as ledger`,
  );
  return rows[0]!;
}

async function addPerson(pglite: Awaited<ReturnType<typeof borrowDatabase>>, name: string) {
  await pglite.query(
    `insert into users (name, password_hash, role, source) values ($1, 'x', 'admin', 'team')`,
    [name],
  );
}

describe("the test proxies' database pool", () => {
  it("lends a database back exactly as the image has it: rows, row marks and sequences", async () => {
    const first = await borrowDatabase();
    const image = await counts(first);
    await addPerson(first, "ada");
    await first.query(`select nextval('ledger_id_seq')`);
    expect((await counts(first)).users).toBe(1);
    await giveBackDatabase(first);

    const second = await borrowDatabase();
    expect(second).toBe(first);
    expect(await counts(second)).toEqual(image);
    await giveBackDatabase(second);
  });

  it("does not lend again a database whose schema a test changed", async () => {
    const first = await borrowDatabase();
    await first.exec("alter table users disable trigger user");
    await giveBackDatabase(first);
    expect(first.closed).toBe(true);
    const second = await borrowDatabase();
    expect(second).not.toBe(first);
    await giveBackDatabase(second);
  });

  it("does not lend a database written after it was given back (a proxy that outlived its close)", async () => {
    const first = await borrowDatabase();
    await giveBackDatabase(first);
    await addPerson(first, "late");
    const second = await borrowDatabase();
    expect(second).not.toBe(first);
    expect((await counts(second)).users).toBe(0);
    await giveBackDatabase(second);
  });

  it("ends a transaction a test left open before lending the database again", async () => {
    const first = await borrowDatabase();
    await first.exec("begin");
    await addPerson(first, "open");
    await giveBackDatabase(first);
    const second = await borrowDatabase();
    expect(second).toBe(first);
    expect((await counts(second)).users).toBe(0);
    await giveBackDatabase(second);
  });
});
