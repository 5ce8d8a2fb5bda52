/**
 * The last few manifests parsed, by file name and text. One branch tip is read by the sync of its
 * triggers, by every session that starts on it (its sandbox settings) and by the merge gate; parsing a
 * large manifest (10,000 triggers) takes a second or two, a copy of the result a few milliseconds. Callers
 * that ask for a text while it is being parsed wait for that parse. Callers get a copy, so one that changes
 * what it was given cannot change what the next one reads.
 */
import type { ParsedManifest } from './parse-manifest.js';

const KEPT = 8;

export class ParsedManifests {
  /** Insertion order is recency: a hit moves its entry to the end, the first entry is the least recent. */
  private readonly entries = new Map<string, Promise<ParsedManifest>>();

  async get(filename: string, text: string, parse: () => Promise<ParsedManifest>): Promise<ParsedManifest> {
    const key = `${filename}\0${text}`;
    let parsed = this.entries.get(key);
    if (parsed) {
      this.entries.delete(key);
    } else {
      parsed = parse();
      if (this.entries.size >= KEPT) this.entries.delete(this.entries.keys().next().value as string);
      // A parse that failed is tried again by the next caller.
      const failed = parsed;
      failed.catch(() => this.entries.get(key) === failed && this.entries.delete(key));
    }
    this.entries.set(key, parsed);
    return structuredClone(await parsed);
  }
}
