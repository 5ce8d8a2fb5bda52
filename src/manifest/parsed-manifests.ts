/**
 * The last few manifests parsed, by file name and text. One branch tip is read by the sync of its
 * triggers, by every session that starts on it (its sandbox settings) and by the merge gate; parsing a
 * large manifest (10,000 triggers) takes a second, a copy of the result a few milliseconds. Callers get
 * a copy, so one that changes what it was given cannot change what the next one reads.
 */
import type { ParsedManifest } from './parse-manifest.js';

const KEPT = 8;

export class ParsedManifests {
  /** Insertion order is recency: a hit moves its entry to the end, the first entry is the least recent. */
  private readonly entries = new Map<string, ParsedManifest>();

  get(filename: string, text: string, parse: () => ParsedManifest): ParsedManifest {
    const key = `${filename}\0${text}`;
    let parsed = this.entries.get(key);
    if (parsed) {
      this.entries.delete(key);
    } else {
      parsed = parse();
      if (this.entries.size >= KEPT) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, parsed);
    return structuredClone(parsed);
  }
}
