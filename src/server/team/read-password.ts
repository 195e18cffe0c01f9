import { stdin, stdout } from "node:process";

/**
 * A password from standard input: piped (one line, its newline dropped), or typed at a terminal
 * without echo after a `password: ` prompt (on standard error when `promptOn` says so).
 */
export async function readPassword(prompt = "password: "): Promise<string> {
  if (!stdin.isTTY) {
    let text = "";
    for await (const chunk of stdin) text += chunk;
    return text.replace(/\r?\n$/, "");
  }
  stdout.write(prompt);
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
      if (ch === "\u0003") {
        stdin.setRawMode(false);
        process.exit(130);
      }
      if (ch === "\u007f") password = password.slice(0, -1);
      else password += ch;
    }
  }
  return password;
}
