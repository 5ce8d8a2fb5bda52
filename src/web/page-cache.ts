/**
 * Rendered dashboard pages, kept by (account, slug, version, view). A version never changes once
 * published, so an entry is never stale: a new version or a deleted dashboard simply stops being asked
 * for, and the least recently used entries go once the cache holds more bytes than its budget.
 */
import type { ChartTally } from '../dashboards/render/chart-drawing.js';

export interface CachedPage {
  etag: string;
  csp: string;
  body: Buffer;
  gzip: Buffer;
  /** How many of its charts were drawn for it, and how many were drawn before (for Server-Timing). */
  charts: ChartTally;
}

export class PageCache {
  private readonly entries = new Map<string, CachedPage>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): CachedPage | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Map order is insertion order: re-inserting marks the entry as most recently used.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Stores a rendered page and returns it. */
  set(key: string, entry: CachedPage): CachedPage {
    const size = sizeOf(entry);
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= sizeOf(previous);
    }
    // A page larger than the whole budget is served but not kept.
    if (size > this.maxBytes) return entry;
    this.entries.set(key, entry);
    this.bytes += size;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldestKey);
      this.bytes -= sizeOf(oldest);
    }
    return entry;
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }
}

function sizeOf(entry: CachedPage): number {
  return entry.body.length + entry.gzip.length + entry.csp.length + entry.etag.length;
}
