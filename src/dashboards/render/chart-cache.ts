/**
 * Drawn charts, kept by what they were drawn from (the block's own fields and the size). ECharts is by far the
 * costliest part of a page (milliseconds per chart), and the same chart is drawn again for the print
 * view, for a republished dashboard whose other blocks changed, and for every page that shows it.
 * Entries are plain output strings, so nothing of one render's state reaches another.
 */
import { createHash } from 'node:crypto';

const DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024;

export class ChartCache {
  private readonly entries = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_BUDGET_BYTES) {}

  static key(parts: readonly unknown[]): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  }

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: string): void {
    if (value.length * 2 > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= previous.length * 2;
    }
    this.entries.set(key, value);
    this.bytes += value.length * 2;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.length * 2;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** The process's chart cache (the benchmark clears it to measure first renders). */
export const chartCache = new ChartCache();
