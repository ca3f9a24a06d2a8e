/**
 * A bounded map that forgets the least recently used entries, in two generations (the scheme of `quick-lru`):
 * writes go to the current generation; when it holds `maxSize` entries it becomes the old one and the one
 * before is dropped whole; a hit in the old generation moves the entry to the current one. So a hit in the
 * current generation is one `Map.get` (no reordering per read, unlike a delete-and-set LRU), at most
 * 2 × `maxSize` entries are held, and the last `maxSize` keys written or read are always kept.
 */
export class LruMap<K, V extends object> {
  private current = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(readonly maxSize: number) {
    if (!Number.isInteger(maxSize) || maxSize < 1) throw new RangeError(`maxSize must be a positive integer`);
  }

  get(key: K): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const moved = this.old.get(key);
    if (moved === undefined) return undefined;
    this.old.delete(key);
    this.write(key, moved);
    return moved;
  }

  /** The entry for `key`, made by `make` and kept when there is none: one lookup per generation on a miss. */
  getOrSet(key: K, make: () => V): V {
    const value = this.get(key);
    if (value !== undefined) return value;
    const made = make();
    this.write(key, made);
    return made;
  }

  set(key: K, value: V): void {
    if (this.current.has(key)) this.current.set(key, value);
    else {
      this.old.delete(key);
      this.write(key, value);
    }
  }

  /** Entries held now (both generations): at most 2 × `maxSize`. */
  get size(): number {
    return this.current.size + this.old.size;
  }

  clear(): void {
    this.current.clear();
    this.old.clear();
  }

  private write(key: K, value: V): void {
    if (this.current.size >= this.maxSize) {
      this.old = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }
}
