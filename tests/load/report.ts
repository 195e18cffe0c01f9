import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where both suites write: each owns one section of results.md (and the soak its CSV). */
export const ARTIFACTS = path.resolve("test-artifacts/load");

/** Date, machine and the load already on it (the cores may be shared with other work). */
export function machine(): string {
  const cpus = os.cpus();
  const load = os.loadavg().map((v) => v.toFixed(2));
  return [
    `${new Date().toISOString()}`,
    `${cpus.length} cores (${cpus[0]?.model.trim() ?? "unknown CPU"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`,
    `load average (1, 5, 15 min) at start: ${load.join(", ")}`,
  ].join("; ");
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(", ");

/** Replaces (or appends) the `name` section of results.md, so each suite keeps the other's figures. */
export function writeSection(name: string, markdown: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, "results.md");
  const start = `<!-- ${name} -->`;
  const end = `<!-- /${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, "utf8") : "# Load and soak results\n";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  text =
    from >= 0 && to > from
      ? `${text.slice(0, from)}${block}${text.slice(to + end.length)}`
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
  return file;
}
