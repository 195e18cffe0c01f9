import { vi } from "vitest";
import type { GroupNode } from "../../../../src/contract/filter";
import type { Audience, AudienceVersion } from "../../../../src/contract/team";

/**
 * The proxy's `/api/audiences` routes in memory, as the plan describes them (contract/team.ts), for
 * the panel's tests: visibility (own + shared), versions, 409 VERSION_CONFLICT with `current`, soft
 * delete and undelete, restore as a new version, clientId dedupe. `as(person)` changes who calls.
 */
export interface SentRequest {
  method: string;
  path: string;
  body: unknown;
}

interface Stored {
  audience: Omit<Audience, "canEdit" | "canManage">;
  versions: AudienceVersion[];
  deleted: boolean;
  clientId?: string;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function fakeAudienceServer(options: { person?: string; admin?: boolean } = {}) {
  let person = options.person ?? "ana";
  const admins = new Set(options.admin ? [person] : []);
  const rows = new Map<string, Stored>();
  const sent: SentRequest[] = [];
  let nextId = 1;
  /** While set, writes (anything but GET) wait for it before they are answered. */
  let held: Promise<void> | null = null;
  let clock = Date.parse("2026-11-25T12:00:00.000Z");
  const now = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };

  const visible = (row: Stored) => !row.deleted && (row.audience.shared || row.audience.owner === person);
  const view = (row: Stored): Audience => ({
    ...row.audience,
    canEdit: row.audience.shared || row.audience.owner === person,
    canManage: row.audience.owner === person || admins.has(person),
  });
  const snapshot = (row: Stored, restoredFrom: number | null = null) => {
    const a = row.audience;
    row.versions.unshift({
      version: a.version,
      name: a.name,
      filter: a.filter,
      shared: a.shared,
      lastCount: a.lastCount,
      savedAt: a.updatedAt,
      savedBy: a.updatedBy,
      restoredFrom,
    });
  };
  const notFound = () => json({ detail: "This audience does not exist, or it is not shared with you." }, 404);

  const server = {
    sent,
    rows,
    as(name: string) {
      person = name;
      return server;
    },
    /** Creates an audience directly (as `owner`), outside the app. */
    seed(values: {
      name: string;
      filter: GroupNode;
      owner?: string;
      shared?: boolean;
      lastCount?: number | null;
    }) {
      const at = now();
      const owner = values.owner ?? person;
      const row: Stored = {
        audience: {
          id: `aud_${String(nextId++).padStart(6, "0")}`,
          name: values.name,
          filter: values.filter,
          owner,
          shared: values.shared ?? false,
          lastCount: values.lastCount ?? null,
          version: 1,
          createdAt: at,
          createdBy: owner,
          updatedAt: at,
          updatedBy: owner,
        },
        versions: [],
        deleted: false,
      };
      snapshot(row);
      rows.set(row.audience.id, row);
      return row.audience;
    },
    /** A save by someone else (a new version), outside the app. */
    saveAs(name: string, id: string, changes: Partial<Pick<Audience, "name" | "filter" | "lastCount">>) {
      const row = rows.get(id)!;
      row.audience = {
        ...row.audience,
        ...changes,
        version: row.audience.version + 1,
        updatedAt: now(),
        updatedBy: name,
      };
      snapshot(row);
      return row.audience;
    },
    async handle(method: string, path: string, body: unknown): Promise<Response> {
      if (method === "GET" && path === "/api/session")
        return json({
          mode: "sandbox",
          plan: "PAYG",
          user: person,
          role: admins.has(person) ? "admin" : "buyer",
          keyLast4: "abcd",
        });
      if (path === "/api/audiences") {
        if (method === "GET")
          return json({
            audiences: [...rows.values()]
              .filter(visible)
              .sort((a, b) => b.audience.updatedAt.localeCompare(a.audience.updatedAt))
              .map(view),
          });
        if (method === "POST") {
          const b = body as {
            name: string;
            filter: GroupNode;
            shared?: boolean;
            lastCount?: number | null;
            clientId?: string;
          };
          if (b.name.trim() === "")
            return json(
              {
                detail: [
                  { type: "too_small", loc: ["body", "name"], msg: "Give the audience a name.", input: "" },
                ],
              },
              422,
            );
          const existing = [...rows.values()].find(
            (r) => b.clientId && r.clientId === b.clientId && r.audience.owner === person,
          );
          if (existing) return json(view(existing));
          const created = server.seed({
            name: b.name.trim(),
            filter: b.filter,
            shared: b.shared,
            lastCount: b.lastCount ?? null,
          });
          const row = rows.get(created.id)!;
          row.clientId = b.clientId;
          return json(view(row), 201);
        }
      }
      const match = /^\/api\/audiences\/([^/]+)(\/[a-z]+)?$/.exec(path);
      if (!match) return json({ detail: "Not found" }, 404);
      const row = rows.get(decodeURIComponent(match[1]!));
      const tail = match[2] ?? "";
      if (tail === "/undelete" && method === "POST") {
        if (!row || row.audience.owner !== person) return notFound();
        row.deleted = false;
        return json(view(row));
      }
      if (!row || !visible(row)) return notFound();
      if (tail === "" && method === "GET") return json(view(row));
      if (tail === "/versions" && method === "GET") return json({ versions: row.versions });
      if (tail === "" && method === "DELETE") {
        if (!view(row).canManage)
          return json({ detail: "Only its owner or an admin may delete it.", code: "ROLE_REQUIRED" }, 403);
        row.deleted = true;
        return json({ deleted: true });
      }
      const b = body as { version: number };
      if (b.version !== row.audience.version)
        return json(
          { detail: "A newer version was saved.", code: "VERSION_CONFLICT", current: view(row) },
          409,
        );
      if (tail === "" && method === "PUT") {
        const { version: _v, ...changes } = body as Partial<Audience> & { version: number };
        row.audience = {
          ...row.audience,
          ...changes,
          version: row.audience.version + 1,
          updatedAt: now(),
          updatedBy: person,
        };
        snapshot(row);
        return json(view(row));
      }
      if (tail === "/restore" && method === "POST") {
        const restore = (body as { restore: number }).restore;
        const old = row.versions.find((v) => v.version === restore)!;
        row.audience = {
          ...row.audience,
          name: old.name,
          filter: old.filter,
          shared: old.shared,
          lastCount: old.lastCount,
          version: row.audience.version + 1,
          updatedAt: now(),
          updatedBy: person,
        };
        snapshot(row, restore);
        return json(view(row));
      }
      return json({ detail: "Method not allowed" }, 405);
    },
    /** Holds every write (not GETs) until the returned function is called: a slow save. */
    holdWrites(): () => void {
      let release = () => {};
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        held = null;
        release();
      };
    },
    /** Routes the page's fetch through this server (and resolves relative URLs as a browser does). */
    install() {
      const BaseRequest = globalThis.Request;
      class BrowserRequest extends BaseRequest {
        constructor(input: RequestInfo | URL, init?: RequestInit) {
          super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
        }
      }
      vi.stubGlobal("Request", BrowserRequest);
      vi.stubGlobal("fetch", async (input: Request) => {
        const text = await input.clone().text();
        const path = new URL(input.url).pathname;
        const body = text === "" ? null : JSON.parse(text);
        sent.push({ method: input.method, path, body });
        if (input.headers.get("x-csrf") !== "1") return json({ detail: "x-csrf missing" }, 403);
        if (input.method !== "GET" && held) await held;
        return server.handle(input.method, path, body);
      });
      return server;
    },
  };
  return server;
}
