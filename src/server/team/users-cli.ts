import { parseArgs } from "node:util";
import {
  CLI_PERSON,
  isReservedName,
  passwordSchema,
  RESERVED_NAME_MESSAGE,
  ROLES,
  type Role,
  USER_NAME,
} from "../../contract/team";
import { ConfigError, configFromEnv } from "../config";
import { type Database, DatabaseInUse, openDatabase } from "../db/database";
import { ProxyProblem } from "../http/answer";
import { hashPassword } from "./passwords";
import { addPerson, changePerson, listPeople, removePerson } from "./people";
import { readPassword } from "./read-password";

/**
 * `npm run users -- <command>`: the team's people from a shell, with the proxy's own configuration
 * (DATA_DIR or DATABASE_URL, read by the same loader) and the same rules as the Team page (the
 * first person is an admin, never without an admin, USERS_FILE people are changed in the file).
 * Changes are audited with the actor "cli". Passwords come from USER_PASSWORD or standard input
 * (typed without echo at a terminal), never from the command line (it is visible to others).
 * Exit codes: 0 done, 1 refused or failed (one line: a taken or reserved name, a name that is not
 * one, a password too short, too long or not given), 2 usage (an unknown command, a missing
 * argument or --role, a role that is not one; with the usage block).
 */
const USAGE = `usage: npm run users -- <command>
  add NAME --role admin|buyer|analyst   add a person (password from USER_PASSWORD or standard input)
  set-role NAME ROLE                    change a person's role (ends their sessions)
  reset-password NAME                   set a new password (ends their sessions)
  remove NAME                           remove a person (ends their sessions)
  list                                  who is on the team
  hash NAME [--role ROLE]               print a USERS_FILE line (no database)`;

class Usage extends Error {}
/** A refusal of what was given (not of how the command was typed): one line, exit 1, no usage. */
class Refused extends Error {}

const say = (line: string) => process.stdout.write(`${line}\n`);

function nameArg(value: string | undefined): string {
  if (!value) throw new Usage("give a name");
  if (!USER_NAME.test(value))
    throw new Refused(`'${value}' is not a name: use 1 to 64 letters, digits, . _ @ -`);
  return value;
}

/** A name for a new person: not one the proxy keeps for itself. */
function newNameArg(value: string | undefined): string {
  const name = nameArg(value);
  if (isReservedName(name)) throw new Refused(RESERVED_NAME_MESSAGE);
  return name;
}

function roleArg(value: string | undefined): Role {
  if (!value) throw new Usage(`give a role: ${ROLES.join(", ")}`);
  if (!ROLES.includes(value as Role)) throw new Usage(`'${value}' is not a role: use ${ROLES.join(", ")}`);
  return value as Role;
}

async function password(): Promise<string> {
  const given = process.env.USER_PASSWORD ?? (await readPassword());
  if (given === "") throw new Refused("No password given: pipe it on standard input or set USER_PASSWORD.");
  const checked = passwordSchema.safeParse(given);
  if (!checked.success) throw new Refused(checked.error.issues[0]!.message);
  return checked.data;
}

/** The proxy's refusal (409, 404, 422) in its own words. */
function detailOf(problem: ProxyProblem): string {
  const body = JSON.parse(problem.answer.body) as { detail: string | { msg: string }[] };
  return typeof body.detail === "string"
    ? body.detail
    : body.detail.map((d) => d.msg.replace(/^Value error, /, "")).join("; ");
}

async function open(): Promise<Database> {
  const config = configFromEnv(process.env);
  try {
    return await openDatabase(config);
  } catch (error) {
    if (error instanceof DatabaseInUse)
      throw new ConfigError(
        `the proxy (process ${error.holder}) holds the embedded database in ${error.folder}: use the Team page, or stop the proxy first, or give both a PostgreSQL server with DATABASE_URL`,
      );
    throw error;
  }
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    options: { role: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const expect = (n: number) => {
    if (rest.length > n) throw new Usage(`${command}: too many arguments`);
    if (rest.length < n) throw new Usage(`${command}: give ${n === 2 ? "a name and a role" : "a name"}`);
  };

  if (command === "hash") {
    expect(1);
    const name = newNameArg(rest[0]);
    const role = values.role === undefined ? null : roleArg(values.role);
    const hash = await hashPassword(await password());
    say(role ? `${name}:${role}:${hash}` : `${name}:${hash}`);
    return 0;
  }

  // Checked before the database is opened, so that a mistake costs nothing.
  let run: (database: Database) => Promise<string>;
  if (command === "add") {
    expect(1);
    const name = newNameArg(rest[0]);
    const role = roleArg(values.role);
    const secret = await password();
    run = async ({ db }) => {
      await addPerson(db, CLI_PERSON, { name, role, password: secret });
      return `added ${name} as ${role}`;
    };
  } else if (command === "set-role") {
    expect(2);
    const name = nameArg(rest[0]);
    const role = roleArg(rest[1]);
    run = async ({ db }) => {
      await changePerson(db, CLI_PERSON, name, { role });
      return `${name} is now ${role}; their sessions have ended`;
    };
  } else if (command === "reset-password") {
    expect(1);
    const name = nameArg(rest[0]);
    const secret = await password();
    run = async ({ db }) => {
      await changePerson(db, CLI_PERSON, name, { password: secret });
      return `${name} has a new password; their sessions have ended`;
    };
  } else if (command === "remove") {
    expect(1);
    const name = nameArg(rest[0]);
    run = async ({ db }) => {
      const { heir, passed } = await removePerson(db, CLI_PERSON, name);
      return `removed ${name}; their sessions have ended${passed > 0 ? `; their ${passed === 1 ? "audience" : `${passed} audiences`} passed to ${heir}` : ""}`;
    };
  } else if (command === "list") {
    expect(0);
    run = async ({ db }) => {
      const people = await listPeople(db);
      if (people.length === 0)
        return "nobody yet: add an admin with `npm run users -- add NAME --role admin`";
      const width = Math.max(4, ...people.map((p) => p.name.length));
      return [
        `${"name".padEnd(width)}  role     source  added`,
        ...people.map(
          (p) =>
            `${p.name.padEnd(width)}  ${p.role.padEnd(7)}  ${p.source.padEnd(6)}  ${p.createdAt.slice(0, 10)}${p.createdBy ? ` by ${p.createdBy}` : ""}`,
        ),
      ].join("\n");
    };
  } else throw new Usage(`unknown command '${command}'`);

  const database = await open();
  try {
    say(await run(database));
  } finally {
    await database.close();
  }
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof Usage || (error as NodeJS.ErrnoException)?.code?.startsWith?.("ERR_PARSE_ARGS")) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (error instanceof ProxyProblem) {
    process.stderr.write(`${detailOf(error)}\n`);
    process.exitCode = 1;
  } else if (error instanceof Refused || error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`failed: ${String((error as Error)?.message ?? error)}\n`);
    process.exitCode = 1;
  }
}
