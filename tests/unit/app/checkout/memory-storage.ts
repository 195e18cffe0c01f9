/** A Storage in memory, optionally refusing writes (quota, privacy mode). */
export class MemoryStorage implements Storage {
  private readonly data = new Map<string, string>();
  refuseWrites = false;

  get length() {
    return this.data.size;
  }
  clear() {
    this.data.clear();
  }
  getItem(key: string) {
    return this.data.get(key) ?? null;
  }
  key(index: number) {
    return [...this.data.keys()][index] ?? null;
  }
  removeItem(key: string) {
    if (this.refuseWrites) throw new DOMException("refused", "QuotaExceededError");
    this.data.delete(key);
  }
  setItem(key: string, value: string) {
    if (this.refuseWrites) throw new DOMException("refused", "QuotaExceededError");
    this.data.set(key, value);
  }
}
