import { hashPassword, USER_NAME } from "./passwords";
import { readPassword } from "./read-password";

/**
 * Makes a USERS_FILE line: `node --import tsx src/server/hash-password.ts <name>`, then type the
 * password (not echoed), or pipe it on stdin. Prints `name:scrypt$...`. Kept for scripts that use
 * it; `npm run users -- hash NAME [--role ROLE]` does the same (and more: see users-cli.ts).
 */
const name = process.argv[2];
if (!name || !USER_NAME.test(name)) {
  console.error("usage: node --import tsx src/server/hash-password.ts <name>   (password on stdin)");
  console.error("names: 1 to 64 of letters, digits, . _ @ -");
  process.exit(2);
}

const password = await readPassword();
if (password.length < 8) {
  console.error("use a password of at least 8 characters");
  process.exit(2);
}
console.log(`${name}:${await hashPassword(password)}`);
