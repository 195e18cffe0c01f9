// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import Papa from "papaparse";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CSV_HEADERS_KEY } from "../../../../src/app/features/checkout/csv-headers";
import { useExportDownload } from "../../../../src/app/features/checkout/export-progress";
import { RowsResultView } from "../../../../src/app/features/checkout/rows-result";
import type { RowsResult } from "../../../../src/app/features/checkout/saved-results";
import { toCsv } from "../../../../src/app/ui/csv";
import { installFakeFetch } from "../audience/harness";
import { captureSaves } from "./capture-saves";

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

const headerOf = async (file: { blob: Blob } | undefined) =>
  Papa.parse<string[]>(await file!.blob.text()).data[0];

describe("toCsv's header row", () => {
  const rows = [{ RBID_PAO: "pao_1", FULL_NAME_PER: "Jane", REVENUE_MIN: 5, extra: "x" }];
  const columns = ["RBID_PAO", "FULL_NAME_PER", "REVENUE_MIN", "extra"];

  it("in labels: each column's label, quoted where RFC 4180 needs it; an unknown column by its name", () => {
    expect(toCsv(rows, columns, { headers: "labels" })).toBe(
      'Contact ID,Full name,"Revenue (min, USD)",extra\r\npao_1,Jane,5,x\r\n',
    );
  });

  it("in the service's names, as before (the default of the function)", () => {
    const names = "RBID_PAO,FULL_NAME_PER,REVENUE_MIN,extra\r\npao_1,Jane,5,x\r\n";
    expect(toCsv(rows, columns, { headers: "names" })).toBe(names);
    expect(toCsv(rows, columns)).toBe(names);
  });

  it("never writes two columns under one header", () => {
    const text = toCsv([{ EMAIL_ADDRESS_PER: "a@b.co", Email: "x" }], ["EMAIL_ADDRESS_PER", "Email"], {
      headers: "labels",
    });
    expect(text.split("\r\n")[0]).toBe("Email (EMAIL_ADDRESS_PER),Email");
  });
});

const RESULT: RowsResult = {
  v: 1,
  at: "2026-03-01T10:00:00.000Z",
  summary: "2 people, with email addresses",
  reveal: "email",
  columns: ["RBID_PAO", "FULL_NAME_PER", "EMAIL_ADDRESS_PER"],
  rows: [
    { RBID_PAO: "pao_1", FULL_NAME_PER: "Jane Doe", EMAIL_ADDRESS_PER: "jane@acme.com" },
    { RBID_PAO: "pao_2", FULL_NAME_PER: "Smith, John", EMAIL_ADDRESS_PER: null },
  ],
  notFound: [],
  creditsCharged: 4,
  creditsRemaining: 96,
  unsent: 0,
};

const renderResult = () =>
  render(
    <RowsResultView
      result={RESULT}
      plan="PAYG"
      title="Enriched rows"
      filePrefix="enriched"
      onClear={() => {}}
    />,
  );
const headersField = () => screen.getByRole("combobox", { name: "Column headers" }) as HTMLSelectElement;

describe("the CSV of rows bought", () => {
  it("reads Contact ID, Full name, Email by default", async () => {
    const saved = captureSaves();
    renderResult();
    expect(headersField().value).toBe("labels");
    fireEvent.click(screen.getByRole("button", { name: "Download CSV" }));
    expect(await headerOf(saved[0])).toEqual(["Contact ID", "Full name", "Email"]);
    expect((await saved[0]!.blob.text()).split("\r\n")[2]).toBe('pao_2,"Smith, John",');
  });

  it("offers the service's names, and remembers the choice on this device", async () => {
    const saved = captureSaves();
    renderResult();
    fireEvent.change(headersField(), { target: { value: "names" } });
    fireEvent.click(screen.getByRole("button", { name: "Download CSV" }));
    expect(await headerOf(saved[0])).toEqual(["RBID_PAO", "FULL_NAME_PER", "EMAIL_ADDRESS_PER"]);
    expect(JSON.parse(localStorage.getItem(CSV_HEADERS_KEY) ?? "null")).toBe("names");
    cleanup();
    renderResult();
    expect(headersField().value).toBe("names");
  });

  it("falls back to labels when what is stored cannot be read", () => {
    localStorage.setItem(CSV_HEADERS_KEY, JSON.stringify("shouting"));
    renderResult();
    expect(headersField().value).toBe("labels");
  });
});

describe("an export's file", () => {
  const csv = () =>
    new Response("Contact ID\r\npao_1\r\n", {
      headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="x.csv"' },
    });

  it("is asked for in labels by default (headers=labels, read by the proxy), as it is once names are chosen", async () => {
    const sent = installFakeFetch(csv);
    captureSaves();
    const { result } = renderHook(() => useExportDownload("exp_1", "x"));
    await act(() => result.current.start());
    expect(sent[0]?.path).toBe("/api/v2/contact/export/exp_1/download");
    expect(sent[0]?.search).toBe("?headers=labels");

    // The choice made beside any other download applies here too: one setting.
    renderResult();
    fireEvent.change(headersField(), { target: { value: "names" } });
    await act(() => result.current.start());
    expect(sent[1]?.path).toBe("/api/v2/contact/export/exp_1/download");
    expect(sent[1]?.search).toBe("");
  });
});
