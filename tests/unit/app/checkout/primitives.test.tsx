// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import Papa from "papaparse";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import {
  downloadFile,
  filenameFromDisposition,
  safeFilename,
  saveTextFile,
} from "../../../../src/app/api/download";
import { downloadExport, exportFilename } from "../../../../src/app/features/checkout/api/export-download";
import { defaultExportName } from "../../../../src/app/features/checkout/export-panel";
import { fileRows } from "../../../../src/app/features/checkout/export-progress";
import { toCsv } from "../../../../src/app/ui/csv";
import { ProgressBar } from "../../../../src/app/ui/progress-bar";
import { RecordsTable } from "../../../../src/app/ui/records-table";
import { installFakeFetch } from "../audience/harness";
import { captureSaves } from "./capture-saves";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("toCsv", () => {
  it("writes RFC 4180: a header, CRLF, quotes where needed, nothing as an empty field", () => {
    const text = toCsv(
      [
        { RBID_PAO: "pao_1", FULL_NAME_PER: 'Jane "JJ" Doe', CITY_PER: null, N: 3 },
        { RBID_PAO: "pao_2", FULL_NAME_PER: "Smith, John", CITY_PER: "Köln\nNord" },
      ],
      ["RBID_PAO", "FULL_NAME_PER", "CITY_PER", "N"],
    );
    expect(text).toBe(
      'RBID_PAO,FULL_NAME_PER,CITY_PER,N\r\npao_1,"Jane ""JJ"" Doe",,3\r\npao_2,"Smith, John","Köln\nNord",\r\n',
    );
    const back = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(back.data[1]?.FULL_NAME_PER).toBe("Smith, John");
    expect(back.data[0]?.CITY_PER).toBe("");
  });

  it("keeps a phone number's leading + as it is", () => {
    expect(toCsv([{ CELLPHONE_PER: "+49 151 000" }], ["CELLPHONE_PER"])).toBe(
      "CELLPHONE_PER\r\n+49 151 000\r\n",
    );
  });
});

describe("file names", () => {
  it("reads Content-Disposition in its forms", () => {
    expect(filenameFromDisposition('attachment; filename="Germany_test.csv"')).toBe("Germany_test.csv");
    expect(filenameFromDisposition("attachment; filename=plain.csv")).toBe("plain.csv");
    expect(filenameFromDisposition("attachment; filename*=UTF-8''K%C3%B6ln.csv; filename=\"K_ln.csv\"")).toBe(
      "Köln.csv",
    );
    expect(filenameFromDisposition("inline")).toBeNull();
    expect(filenameFromDisposition(null)).toBeNull();
  });

  it("makes names safe to save", () => {
    expect(safeFilename("../../etc/passwd")).toBe("_.._etc_passwd");
    expect(safeFilename("a<b>:c.csv")).toBe("a_b_c.csv");
    expect(safeFilename("  ", "export.csv")).toBe("export.csv");
  });
});

describe("downloadFile", () => {
  it("fetches through the api client (x-csrf) and saves under the server's name", async () => {
    const sent = installFakeFetch(
      () =>
        new Response("a,b\r\n1,2\r\n", {
          headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="x.csv"' },
        }),
    );
    const saved = captureSaves();
    const result = await downloadFile("v2/contact/export/exp_1/download", { fallbackName: "fallback.csv" });
    expect(result).toEqual({ filename: "x.csv", bytes: 10 });
    expect(sent[0]?.path).toBe("/api/v2/contact/export/exp_1/download");
    expect(sent[0]?.headers.get("x-csrf")).toBe("1");
    expect(saved).toHaveLength(1);
    expect(saved[0]?.name).toBe("x.csv");
    expect(await saved[0]?.blob.text()).toBe("a,b\r\n1,2\r\n");
  });

  it("uses the fallback name when the answer names none", async () => {
    installFakeFetch(() => new Response("x", { headers: { "content-type": "text/csv" } }));
    captureSaves();
    expect((await downloadFile("/v2/file", { fallbackName: "my export.csv" })).filename).toBe(
      "my export.csv",
    );
  });

  it("saves an export under the name it was made with and its day, not the service's export.csv", async () => {
    installFakeFetch(
      () =>
        new Response("a\r\n1\r\n", {
          headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="export.csv"' },
        }),
    );
    const saved = captureSaves();
    const name = exportFilename("exp_1", "Directors in Germany", "2026-11-29T10:00:00Z");
    expect(name).toMatch(/^Directors in Germany 2026-11-(29|30|28)\.csv$/);
    expect(
      (await downloadExport("exp_1", "Directors in Germany", "names", "2026-11-29T10:00:00Z")).filename,
    ).toBe(name);
    expect(saved[0]?.name).toBe(name);
    expect(exportFilename("exp_1", null)).toBe("exp_1.csv");
  });

  it("counts an export's rows bought and added free apart, and both in the file", () => {
    expect(fileRows(10, 5)).toBe("15 rows: 10 bought, 5 of yours added free");
    expect(fileRows(10, 0)).toBe("10 rows");
    expect(fileRows(1, 0)).toBe("1 row");
  });

  it("names an export after the saved audience, else the filter in words, when the buyer types nothing", () => {
    expect(defaultExportName("Directors in Germany", 'Country is "Germany"')).toBe("Directors in Germany");
    expect(defaultExportName(null, 'Country is "Germany"')).toBe('Country is "Germany"');
    const long = defaultExportName(null, `Country is ${"x".repeat(100)}`);
    expect(long).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
  });

  it("throws ApiError (409 until completed, network when no answer) and saves nothing", async () => {
    installFakeFetch(
      () =>
        new Response(
          JSON.stringify({ detail: "The export is PROCESSING; it can be downloaded once COMPLETED" }),
          {
            status: 409,
            headers: { "content-type": "application/json" },
          },
        ),
    );
    const saved = captureSaves();
    const error = await downloadFile("v2/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect((error as ApiError).message).toContain("PROCESSING");
    installFakeFetch(() => {
      throw new TypeError("Failed to fetch");
    });
    const dropped = await downloadFile("v2/x").catch((e: unknown) => e);
    expect((dropped as ApiError).kind).toBe("network");
    expect(saved).toHaveLength(0);
  });

  it("saveTextFile saves text made in the browser", async () => {
    const saved = captureSaves();
    saveTextFile("a\r\n", "rows.csv");
    expect(saved[0]?.name).toBe("rows.csv");
    expect(saved[0]?.blob.type).toBe("text/csv;charset=utf-8");
  });
});

describe("RecordsTable", () => {
  it("is a captioned table with column headers, nothing shown as an em dash read as none", () => {
    render(
      <RecordsTable
        rows={[
          { RBID_PAO: "pao_1", FULL_NAME_PER: "Jane", EMPLOYEE_COUNT_MIN: 12000, FOUNDED_ORG: 1998, X: null },
        ]}
        columns={["RBID_PAO", "FULL_NAME_PER", "EMPLOYEE_COUNT_MIN", "FOUNDED_ORG", "X"]}
        labels={{ X: "Extra" }}
        caption="Enriched rows"
      />,
    );
    const table = screen.getByRole("table", { name: "Enriched rows" });
    expect(screen.getByRole("region", { name: "Enriched rows" }).tabIndex).toBe(0);
    const headers = [...table.querySelectorAll("th")].map((th) => th.textContent);
    expect(headers).toEqual(["Contact ID", "Full name", "Employees (min)", "Founded", "Extra"]);
    const cells = [...table.querySelectorAll("td")].map((td) => td.textContent);
    expect(cells).toEqual(["pao_1", "Jane", "12,000", "1998", "—none"]);
  });

  it("says so when there are no rows", () => {
    render(<RecordsTable rows={[]} columns={["A"]} caption="x" emptyText="Nothing here." />);
    expect(screen.getByRole("status").textContent).toBe("Nothing here.");
  });
});

describe("ProgressBar", () => {
  it("is a labelled progressbar with its value", () => {
    render(<ProgressBar value={25} max={100} label="Writing the file" valueText="25 of 100 rows" />);
    const bar = screen.getByRole("progressbar", { name: "Writing the file" });
    expect(bar.getAttribute("value")).toBe("25");
    expect(bar.getAttribute("max")).toBe("100");
    expect(screen.getByText("25 of 100 rows")).toBeTruthy();
  });

  it("has no value while waiting, and never divides by zero", () => {
    render(<ProgressBar value={0} max={0} label="Queued" indeterminate />);
    expect(screen.getByRole("progressbar", { name: "Queued" }).hasAttribute("value")).toBe(false);
  });
});
