import { randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { isReservedName, RESERVED_NAME_MESSAGE, ROLES, type Role, USER_NAME } from "../../contract/team";
import { ConfigError } from "../config";

export { USER_NAME };

/**
 * Password entries: `scrypt$N$r$p$<salt>$<hash>` (base64url), one random salt per user, checked in
 * constant time. scrypt runs on libuv's pool, so a sign-in never blocks other requests.
 */
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

const options = (N: number, r: number, p: number): ScryptOptions => ({
  N,
  r,
  p,
  maxmem: 256 * N * r + 1024 * 1024,
});

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, options(PARAMS.N, PARAMS.r, PARAMS.p));
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

export function parseHash(encoded: string): Parsed | null {
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, "base64url");
  const key = Buffer.from(parts[5]!, "base64url");
  const sane =
    Number.isInteger(N) &&
    N >= 1024 &&
    N <= 1 << 20 &&
    (N & (N - 1)) === 0 &&
    r >= 1 &&
    r <= 32 &&
    p >= 1 &&
    p <= 16;
  if (!sane || salt.length < 8 || key.length < 16) return null;
  return { N, r, p, salt, key };
}

/** A stand-in for unknown names, so that they cost the same time as known ones. */
const DUMMY: Parsed = { ...PARAMS, salt: randomBytes(16), key: randomBytes(KEY_LENGTH) };

export async function verifyPassword(password: string, encoded: string | undefined): Promise<boolean> {
  const parsed = (encoded && parseHash(encoded)) || DUMMY;
  const key = await scrypt(password, parsed.salt, parsed.key.length, options(parsed.N, parsed.r, parsed.p));
  return timingSafeEqual(key, parsed.key) && parsed !== DUMMY;
}

/** One person of USERS_FILE: the hash, and the role (admin when the file does not say). */
export interface FileEntry {
  hash: string;
  role: Role;
}

/** USERS_FILE's people and their hashes (see `loadUserEntries` for roles). */
export function loadUsers(file: string): Map<string, string> {
  return new Map([...loadUserEntries(file)].map(([name, entry]) => [name, entry.hash]));
}

const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

/**
 * USERS_FILE: JSON (`{ "name": "scrypt$..." }`, `[{ "name", "hash", "role"? }]` or
 * `{ "users": [...] }`) or lines `name:scrypt$...` / `name:role:scrypt$...` (blank lines and `#`
 * comments allowed). A person without a role is an admin: before roles, everyone could do everything.
 */
export function loadUserEntries(file: string): Map<string, FileEntry> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`USERS_FILE ${file} cannot be read: ${(error as NodeJS.ErrnoException).code}`);
  }
  const entries: [string, string, unknown][] = [];
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch {
      throw new ConfigError(`USERS_FILE ${file} is not valid JSON`);
    }
    const list = Array.isArray(data) ? data : (data as { users?: unknown }).users;
    if (Array.isArray(list)) {
      for (const item of list) entries.push([String(item?.name), String(item?.hash), item?.role]);
    } else if (data && typeof data === "object") {
      for (const [name, hash] of Object.entries(data)) entries.push([name, String(hash), undefined]);
    }
  } else {
    for (const [i, line] of text.split(/\r?\n/).entries()) {
      const l = line.trim();
      if (l === "" || l.startsWith("#")) continue;
      const parts = l.split(":");
      if (parts.length === 2 && parts[0]) entries.push([parts[0], parts[1]!, undefined]);
      else if (parts.length === 3 && parts[0]) entries.push([parts[0], parts[2]!, parts[1]]);
      else
        throw new ConfigError(
          `USERS_FILE ${file} line ${i + 1} is not 'name:scrypt$...' or 'name:role:scrypt$...'`,
        );
    }
  }
  const users = new Map<string, FileEntry>();
  for (const [name, hash, role] of entries) {
    if (!USER_NAME.test(name))
      throw new ConfigError(`USERS_FILE ${file}: '${name}' is not a valid user name`);
    if (isReservedName(name)) throw new ConfigError(`USERS_FILE ${file}: ${RESERVED_NAME_MESSAGE}`);
    if (!parseHash(hash))
      throw new ConfigError(
        `USERS_FILE ${file}: the entry of '${name}' is not a scrypt hash from \`npm run users -- hash\``,
      );
    if (role !== undefined && !isRole(role))
      throw new ConfigError(
        `USERS_FILE ${file}: the role of '${name}' must be one of ${ROLES.join(", ")} (got '${String(role)}')`,
      );
    users.set(name, { hash, role: role ?? "admin" });
  }
  if (users.size === 0) throw new ConfigError(`USERS_FILE ${file} names nobody`);
  return users;
}
