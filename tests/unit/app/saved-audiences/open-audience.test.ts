import { describe, expect, it } from "vitest";
import { ApiError, apiErrorFromAnswer } from "../../../../src/app/api/api-error";
import { audienceErrorText, versionConflictOf } from "../../../../src/app/api/audiences";
import {
  closeIfForeign,
  createOpenAudienceStore,
  describeConflict,
  followChange,
  hasUnsavedChanges,
  OPEN_AUDIENCE_KEY,
  openAudienceFor,
  openAudienceOf,
  saveInPlace,
  shortLink,
  treeBelongsTo,
  withWorkingTree,
} from "../../../../src/app/lib/open-audience";
import { memoryStorage } from "../../../../src/app/lib/store";
import type { GroupNode } from "../../../../src/contract/filter";
import type { Audience } from "../../../../src/contract/team";

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};
const FRANCE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "France" }],
};

function audience(overrides: Partial<Audience> = {}): Audience {
  return {
    id: "aud_123456",
    name: "Directors in Germany",
    filter: GERMANY,
    owner: "ana",
    shared: true,
    lastCount: 1234,
    version: 3,
    createdAt: "2026-11-25T10:00:00.000Z",
    createdBy: "ana",
    updatedAt: "2026-11-25T12:00:00.000Z",
    updatedBy: "ana",
    canEdit: true,
    canManage: true,
    ...overrides,
  };
}

describe("the open audience", () => {
  it("is opened with its saved filter: no unsaved changes until the tree differs", () => {
    const open = openAudienceOf(audience());
    expect(open).toMatchObject({ id: "aud_123456", name: "Directors in Germany", version: 3 });
    expect(hasUnsavedChanges(open, GERMANY)).toBe(false);
    expect(hasUnsavedChanges(open, FRANCE)).toBe(true);
  });

  it("compares canonical forms: node ids, default fields and connectors on a first child do not count", () => {
    const open = openAudienceOf(audience());
    const sameMeaning = {
      ...GERMANY,
      children: [{ ...GERMANY.children[0]!, id: "n1", joinWithPrevious: "OR" as const }],
    } as GroupNode;
    expect(hasUnsavedChanges(open, sameMeaning)).toBe(false);
  });

  it("belongs to the saved tree and to the tab's last working tree, not to another one", () => {
    const open = withWorkingTree(openAudienceOf(audience()), FRANCE);
    expect(treeBelongsTo(open, GERMANY)).toBe(true);
    expect(treeBelongsTo(open, FRANCE)).toBe(true);
    const other: GroupNode = { ...FRANCE, negate: true };
    expect(treeBelongsTo(open, other)).toBe(false);
    expect(openAudienceFor(open, other)).toBeNull();
    expect(openAudienceFor(open, FRANCE)).toEqual({ open, unsaved: true });
    expect(openAudienceFor(null, FRANCE)).toBeNull();
  });

  it("notes the working tree without a new object when nothing changed", () => {
    const open = openAudienceOf(audience());
    expect(withWorkingTree(open, GERMANY)).toBe(open);
    expect(withWorkingTree(open, FRANCE)).not.toBe(open);
  });

  it("is kept per tab in the storage it is given, survives a new store (a reload), and reads back only valid records", () => {
    const storage = memoryStorage();
    const store = createOpenAudienceStore(() => storage);
    const open = openAudienceOf(audience());
    expect(store.set(open)).toBe(true);
    const reloaded = createOpenAudienceStore(() => storage);
    expect(reloaded.get()).toEqual(open);
    storage.setItem(OPEN_AUDIENCE_KEY, JSON.stringify({ id: "x" }));
    expect(createOpenAudienceStore(() => storage).get()).toBeNull();
    store.set(null);
    expect(storage.getItem(OPEN_AUDIENCE_KEY)).toBeNull();
  });

  it("at load, closes an open audience whose tree this is not (and says which), keeps it otherwise", () => {
    const storage = memoryStorage();
    const store = createOpenAudienceStore(() => storage);
    const open = withWorkingTree(openAudienceOf(audience()), FRANCE);
    store.set(open);
    expect(closeIfForeign(store, GERMANY)).toBeNull();
    expect(closeIfForeign(store, FRANCE)).toBeNull();
    expect(store.get()).toEqual(open);
    expect(closeIfForeign(store, { ...FRANCE, negate: true })).toBe("Directors in Germany");
    expect(store.get()).toBeNull();
    expect(closeIfForeign(store, GERMANY)).toBeNull();
  });

  it("follows this person's own change only from the version it was at", () => {
    const open = openAudienceOf(audience());
    const renamed = audience({ name: "DE directors", version: 4, updatedBy: "bo" });
    expect(followChange(open, 3, renamed)).toMatchObject({
      name: "DE directors",
      version: 4,
      updatedBy: "bo",
    });
    // Opened at an older version: the name follows, the version does not (a later Save still meets the conflict).
    const older = { ...open, version: 2 };
    expect(followChange(older, 3, renamed)).toMatchObject({ name: "DE directors", version: 2 });
    // Another audience, or none: unchanged.
    expect(followChange(open, 3, audience({ id: "other_1", version: 4 }))).toBe(open);
    expect(followChange(null, 3, renamed)).toBeNull();
  });

  it("short links are /a/<id> on the origin", () => {
    expect(shortLink("aud_123456", "https://ab.example")).toBe("https://ab.example/a/aud_123456");
  });

  it("describes a conflict: who saved the newer version, when, and what it holds", () => {
    const open = openAudienceOf(audience());
    const text = describeConflict(
      open,
      audience({ version: 4, updatedBy: "bo", updatedAt: "2026-11-25T11:55:00.000Z", lastCount: 99 }),
      new Date("2026-11-25T12:00:00.000Z"),
    );
    expect(text).toBe(
      "bo saved version 4 of “Directors in Germany” 5 minutes ago (99 people), after the version 3 you opened.",
    );
  });
});

describe("saving in place", () => {
  const conflictError = (current: Audience) =>
    new ApiError({
      kind: "conflict",
      status: 409,
      message: "A newer version exists.",
      code: "VERSION_CONFLICT",
      body: { detail: "A newer version exists.", code: "VERSION_CONFLICT", current },
    });

  it("PUTs the tree with the open version, and moves the open audience to the new version", async () => {
    const open = openAudienceOf(audience());
    const calls: unknown[] = [];
    const outcome = await saveInPlace(
      { open, tree: FRANCE, lastCount: 7 },
      {
        update: async (id, body) => {
          calls.push({ id, body });
          return audience({ filter: FRANCE, version: 4, lastCount: 7, updatedBy: "bo" });
        },
        conflictOf: versionConflictOf,
      },
    );
    expect(calls).toEqual([{ id: "aud_123456", body: { version: 3, filter: FRANCE, lastCount: 7 } }]);
    expect(outcome.kind).toBe("saved");
    if (outcome.kind !== "saved") return;
    expect(outcome.open).toMatchObject({ version: 4, updatedBy: "bo" });
    expect(hasUnsavedChanges(outcome.open, FRANCE)).toBe(false);
  });

  it("turns a 409 VERSION_CONFLICT into the choice, with the latest version; nothing is overwritten", async () => {
    const open = openAudienceOf(audience());
    const theirs = audience({ version: 5, updatedBy: "bo", filter: FRANCE });
    const outcome = await saveInPlace(
      { open, tree: { ...GERMANY, negate: true }, lastCount: null },
      {
        update: async () => {
          throw conflictError(theirs);
        },
        conflictOf: versionConflictOf,
      },
    );
    expect(outcome).toEqual({ kind: "conflict", current: theirs });
  });

  it("overwrites only on purpose: the chosen save names the latest version", async () => {
    const open = openAudienceOf(audience());
    const versions: number[] = [];
    await saveInPlace(
      { open, tree: FRANCE, lastCount: null, replacing: 5 },
      {
        update: async (_id, body) => {
          versions.push(body.version);
          return audience({ version: 6, filter: FRANCE });
        },
        conflictOf: versionConflictOf,
      },
    );
    expect(versions).toEqual([5]);
  });

  it("any other failure is reported, not thrown; a 409 of another shape is not a conflict", async () => {
    const open = openAudienceOf(audience());
    const missing = new ApiError({ kind: "not-found", status: 404, message: "Not found." });
    const outcome = await saveInPlace(
      { open, tree: FRANCE, lastCount: null },
      {
        update: async () => {
          throw missing;
        },
        conflictOf: versionConflictOf,
      },
    );
    expect(outcome).toEqual({ kind: "failed", error: missing });
    const other409 = new ApiError({ kind: "conflict", status: 409, message: "x", body: { detail: "x" } });
    expect(versionConflictOf(other409)).toBeNull();
  });
});

describe("errors of the audience routes, in plain words", () => {
  it("a 422 gives its reason without the path of the field", () => {
    const error = apiErrorFromAnswer(422, {
      detail: [{ type: "too_small", loc: ["body", "name"], msg: "Give the audience a name.", input: "" }],
    });
    expect(error.message).toContain("name:");
    expect(audienceErrorText(error)).toBe("The server refused it: Give the audience a name.");
  });

  it("any other refusal is the proxy's own sentence", () => {
    const error = apiErrorFromAnswer(403, { detail: "Only cy, who owns “X”, or an admin may delete it." });
    expect(audienceErrorText(error)).toBe("Only cy, who owns “X”, or an admin may delete it.");
  });
});
