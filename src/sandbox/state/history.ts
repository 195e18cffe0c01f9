import type { z } from "zod";
import { Archive } from "./archive";
import { DamagedFileError, refuseDamaged } from "./damage";
import type { State, StateStore } from "./store";

type Section = "exports" | "jobs";
type RecordOf<S extends Section> = State[S][string];

/**
 * Ended records of one section of the state (exports, verification jobs): a record stays in the
 * state file while it can change, and once its end is durable there it moves to an append-only
 * archive on disk (./archive.ts). The state file, rewritten whole on every change, and memory then
 * hold only the work under way, however long the history grows.
 */
export class History<S extends Section> {
  private archive: Archive<RecordOf<S>> | null = null;

  constructor(
    private readonly store: StateStore,
    private readonly section: S,
    private readonly describe: (record: RecordOf<S>) => { id: string; owner: string },
    private readonly schema: z.ZodType<RecordOf<S>>,
    private readonly log: (message: unknown) => void = () => {},
  ) {}

  /**
   * Opens the archive and moves in the ended records the state file still holds (a state file from
   * before the archive, a stop between archiving and the next state write, or an end whose save
   * failed). A damaged archive refuses the start (SandboxStartError, a copy kept): starting without
   * its records would make ended exports or jobs vanish.
   */
  async open(file: string, hasEnded: (record: RecordOf<S>) => boolean): Promise<void> {
    try {
      this.archive = Archive.open(file, {
        describe: this.describe,
        schema: this.schema,
        expectBytes: this.store.state.archived?.[this.section],
        log: this.log,
      });
    } catch (error) {
      if (!(error instanceof DamagedFileError)) throw error;
      throw refuseDamaged(
        error,
        error.line === undefined
          ? `restore it from a backup and start again (to go on without the lost records, delete "archived.${this.section}" from state.json)`
          : `restore it from a backup, or repair or delete that line (deleting it loses that record), and start again`,
      );
    }
    const ended = this.live().filter(hasEnded);
    for (const record of ended) this.move(record);
    if (ended.length > 0) await this.store.save();
  }

  get(id: string): RecordOf<S> | undefined {
    return this.opened().get(id);
  }

  ownedBy(owner: string): RecordOf<S>[] {
    return this.opened().ownedBy(owner);
  }

  /**
   * Makes a record's end durable in the state file, then moves it here. Only this record: another
   * one that has ended in memory may not be on disk yet. If the save fails it throws, and the
   * record stays in the state, ended, for a later end() or the next start to move.
   */
  async end(record: RecordOf<S>): Promise<void> {
    await this.store.save();
    this.move(record);
    this.store.saveSoon();
  }

  close(): void {
    this.archive?.close();
    this.archive = null;
  }

  private live(): RecordOf<S>[] {
    return Object.values(this.store.state[this.section]) as RecordOf<S>[];
  }

  /**
   * Into the archive, then out of the state (a stop in between leaves it in both: see open). The
   * archive's new size goes into the state too, so a later start can tell a truncated archive.
   */
  private move(record: RecordOf<S>) {
    const archive = this.opened();
    archive.add(record);
    delete this.store.state[this.section][this.describe(record).id];
    this.store.state.archived = { ...this.store.state.archived, [this.section]: archive.bytes };
  }

  private opened(): Archive<RecordOf<S>> {
    if (!this.archive) throw new Error(`the ${this.section} history is opened on start, before any request`);
    return this.archive;
  }
}
