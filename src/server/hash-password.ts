import { stdin, stdout } from "node:process";
import { hashPassword, USER_NAME } from "./passwords";

/**
 * Makes a USERS_FILE line: `node --import tsx src/server/hash-password.ts <name>`, then type the
 * password (not echoed), or pipe it on stdin. Prints `name:scrypt$...`.
 */
const name = process.argv[2];
if (!name || !USER_NAME.test(name)) {
  console.error("usage: node --import tsx src/server/hash-password.ts <name>   (password on stdin)");
  console.error("names: 1 to 64 of letters, digits, . _ @ -");
  process.exit(2);
}

async function readPassword(): Promise<string> {
  if (!stdin.isTTY) {
    let text = "";
    for await (const chunk of stdin) text += chunk;
    return text.replace(/\r?\n$/, "");
  }
  stdout.write("password: ");
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  let password = "";
  for await (const chunk of stdin) {
    for (const ch of String(chunk)) {
      if (ch === "\r" || ch === "\n") {
        stdin.setRawMode(false);
        stdout.write("\n");
        stdin.pause();
        return password;
      }
      if (ch === "\u0003") process.exit(130);
      if (ch === "\u007f") password = password.slice(0, -1);
      else password += ch;
    }
  }
  return password;
}

const password = await readPassword();
if (password.length < 8) {
  console.error("use a password of at least 8 characters");
  process.exit(2);
}
console.log(`${name}:${await hashPassword(password)}`);
