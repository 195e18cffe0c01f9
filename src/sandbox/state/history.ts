import { Archive } from "./archive";
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
  ) {}

  /**
   * Opens the archive and moves in the ended records the state file still holds (a state file from
   * before the archive, or a stop between archiving and the next state write).
   */
  async open(file: string, hasEnded: (record: RecordOf<S>) => boolean): Promise<void> {
    this.archive = Archive.open(file, this.describe);
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

  /** Makes a record's end durable in the state file, then moves it here. */
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

  /** Into the archive, then out of the state (a stop in between leaves it in both: see open). */
  private move(record: RecordOf<S>) {
    this.opened().add(record);
    delete this.store.state[this.section][this.describe(record).id];
  }

  private opened(): Archive<RecordOf<S>> {
    if (!this.archive) throw new Error(`the ${this.section} history is opened on start, before any request`);
    return this.archive;
  }
}
