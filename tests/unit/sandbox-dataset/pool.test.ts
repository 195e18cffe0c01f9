/**
 * The dataset's connection pool: a request's queries run on one connection when they belong
 * together (a View's wrapped half), so a request queues once, not once per query (seen under the
 * load suite: Views took twice as long as counts at 200 connections).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Dataset } from "../../../src/sandbox/db";

let db: Dataset;
beforeAll(async () => {
  db = await Dataset.open(inject("datasetFile"), { connections: 1, threads: 1 });
});
afterAll(() => db.close());

const query = { text: "SELECT count(*)::BIGINT AS n FROM contacts", params: [] };

describe("Dataset.session", () => {
  it("runs its queries back to back: a query asked for meanwhile waits until the session ends", async () => {
    const order: string[] = [];
    const session = db.session(async (run) => {
      await run(query);
      order.push("session: first");
      // Time for the other request to arrive and queue while the session holds the connection.
      await new Promise((r) => setTimeout(r, 30));
      await run(query);
      order.push("session: second");
      return "done";
    });
    await new Promise((r) => setTimeout(r, 5));
    const other = db.rows(query).then(() => order.push("other"));
    expect(await session).toBe("done");
    await other;
    expect(order).toEqual(["session: first", "session: second", "other"]);
  });

  it("gives its connection back when it fails", async () => {
    await expect(
      db.session(async (run) => {
        await run({ text: "SELECT no_such_column FROM contacts", params: [] });
      }),
    ).rejects.toThrow();
    expect((await db.one(query))?.n).toBeGreaterThan(0);
  });
});
