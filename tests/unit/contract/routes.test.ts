import { describe, expect, it } from "vitest";
import { z } from "zod";
import { requests } from "../../../src/contract/operations";
import { findOperation, OPERATIONS, operationById } from "../../../src/contract/routes";
import { BODY_KEYS } from "../../support/arbitraries/request-bodies";

const requestKeys = new Set(Object.keys(requests));
/** Path parameters of a Hono-style path. */
const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
/** The field names of a request schema (an object schema). */
const fieldsOf = (key: keyof typeof requests) => Object.keys((requests[key] as unknown as z.ZodObject).shape);

describe("operation table", () => {
  it("names only real request schemas in body, query and params", () => {
    for (const op of OPERATIONS) {
      for (const slot of ["body", "query", "params"] as const) {
        const name = op[slot];
        if (name === undefined) continue;
        expect(requestKeys.has(name), `${op.id}.${slot} = ${name}`).toBe(true);
        expect(requests[name], `${op.id}.${slot}`).toBeInstanceOf(z.ZodType);
      }
    }
  });

  it("gives the proxy's own query parameters object schemas whose names the service's query does not use", () => {
    const withOwn = OPERATIONS.filter((op) => "proxyQuery" in op);
    expect(withOwn.map((op) => op.id)).toEqual(["exportDownload"]);
    for (const op of withOwn) {
      const name = (op as { proxyQuery: keyof typeof requests }).proxyQuery;
      expect(requests[name], op.id).toBeInstanceOf(z.ZodObject);
      const service = "query" in op && op.query ? fieldsOf(op.query as keyof typeof requests) : [];
      for (const field of fieldsOf(name)) expect(service, `${op.id}: ${field}`).not.toContain(field);
    }
  });

  it("has unique ids", () => {
    const ids = OPERATIONS.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has unique (method, path) pairs", () => {
    const routes = OPERATIONS.map((o) => `${o.method} ${o.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("marks every spending operation paid", () => {
    const spending = OPERATIONS.filter((o) => o.spends);
    expect(spending.length).toBeGreaterThan(0);
    for (const op of spending) expect(op.access, op.id).toBe("paid");
  });

  it("keeps the operations a view-only key may use open, and the charged ones paid", () => {
    const access = Object.fromEntries(OPERATIONS.map((o) => [o.id, o.access]));
    for (const id of [
      "count",
      "view",
      "insights",
      "companyCount",
      "lookalike",
      "columnValues",
      "creditsV1",
      "creditsV2",
    ])
      expect(access[id], id).toBe("open");
    for (const id of [
      "preview",
      "estimate",
      "exportStart",
      "exports",
      "enrich",
      "verifyV1",
      "batchV1",
      "rotateV1",
      "rotateV2",
    ])
      expect(access[id], id).toBe("paid");
    for (const id of ["preview", "exportStart", "enrich", "verifyV1", "rotateV1"] as const)
      expect(operationById(id).spends, id).toBe(true);
    for (const id of ["count", "view", "estimate", "insights"] as const)
      expect(operationById(id).spends, id).toBe(false);
  });

  it("gives every path parameter a params schema with that field, and params only to paths that have some", () => {
    for (const op of OPERATIONS) {
      const params = pathParams(op.path);
      if (params.length === 0) {
        expect(op.params, op.id).toBeUndefined();
        continue;
      }
      expect(op.params, op.id).toBeDefined();
      expect(fieldsOf(op.params!).sort(), op.id).toEqual([...params].sort());
    }
  });

  it("gives JSON bodies only to POSTs, and a schema to every JSON body", () => {
    for (const op of OPERATIONS) {
      if (op.method === "GET") {
        expect(op.body, op.id).toBeUndefined();
        expect(op.bodyKind, op.id).toBe("none");
      }
      if (op.body) expect(op.bodyKind, op.id).toBe("json");
      if (op.bodyKind === "multipart") expect(op.body, op.id).toBeUndefined();
    }
  });

  it("derives the generation from the path", () => {
    for (const op of OPERATIONS) {
      expect(op.path.startsWith("/")).toBe(true);
      expect(op.generation, op.id).toBe(op.path.startsWith("/v1/") ? "v1" : "v2");
    }
  });

  it("serves the documented paths", () => {
    const routes = new Set(OPERATIONS.map((o) => `${o.method} ${o.path}`));
    for (const route of [
      "POST /v2/contact/view",
      "POST /v2/contact/insights",
      "POST /v2/contact/company/count",
      "POST /v2/contact/company/lookalike",
      "POST /v2/contact/enrich",
      "GET /v2/contact/company/columns/:column/values",
      "GET /v1/credits",
      "GET /v2/credits",
      "GET /v1/new-api-key",
      "POST /v1/process-email",
      "POST /v1/batch-process-email",
      "GET /v1/batch-process-email-status",
      "POST /v1/batch-process-email-status",
      "POST /v1/batch-download",
      "POST /v1/batch-upload",
      "GET /v1/queued-process",
      "POST /v1/cancel-process",
    ])
      expect(routes.has(route), route).toBe(true);
  });

  it("finds operations by id and refuses unknown ids", () => {
    expect(operationById("view").path).toBe("/v2/contact/view");
    // @ts-expect-error: an id the table does not have does not compile.
    expect(() => operationById("nope")).toThrow(/nope/);
    expect(findOperation("nope")).toBeUndefined();
  });

  it("lists in the test arbitraries exactly the body schemas the table uses", () => {
    const used = new Set(OPERATIONS.flatMap((o) => (o.body ? [o.body] : [])));
    expect([...used].sort()).toEqual([...BODY_KEYS].sort());
  });
});
