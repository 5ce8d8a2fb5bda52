/**
 * A branch's manifest, read through the reader given. Parsing a large one (thousands of triggers) takes a
 * second or two of CPU, so it happens in a thread of its own (parse-manifest-thread.ts) while the request
 * thread keeps answering; a small one is parsed inline, where the trip to a thread would cost more.
 */
import type { Issue } from '../errors.js';
import { ThreadPool } from '../thread-pool.js';
import { MANIFEST_FILENAMES, parseManifest, type ManifestFilename, type ParsedManifest, type ParseManifestInput } from './parse-manifest.js';
import { ParsedManifests } from './parsed-manifests.js';

export type FileReader = (path: string) => Promise<string | null>;

export interface ManifestFromTree extends ParsedManifest {
  /** Other manifest files on the branch, which are not read (each is also an issue). */
  ignored: ManifestFilename[];
}

/** From this many characters a manifest is parsed in the thread (a few hundred triggers; 5 to 10 ms inline). */
export const PARSE_IN_THREAD_CHARS = 32 * 1024;

const recentlyParsed = new ParsedManifests();
/** One thread, started at the first large manifest; it never keeps a process alive (thread-pool.ts). */
let parserThread: ThreadPool<ParseManifestInput, ParsedManifest> | undefined;

function parse(input: ParseManifestInput): Promise<ParsedManifest> {
  if (input.text.length < PARSE_IN_THREAD_CHARS) return Promise.resolve(parseManifest(input));
  parserThread ??= new ThreadPool<ParseManifestInput, ParsedManifest>({ entry: new URL('./parse-manifest-thread.js', import.meta.url), threads: 1 });
  // A thread that could not start or crashed costs the request thread the parse, not the answer.
  return parserThread.run(input).catch(() => parseManifest(input));
}

/**
 * Reads the manifest at the root of a branch through `readFile` (null for a missing file). Looks for
 * `svc.yaml`, then `svc.yml`, then the legacy `svc.toml`, and reads the first that exists. Returns null
 * when there is none: a branch without a manifest passes the merge gate and has no triggers.
 *
 * Two manifests on one branch are an issue: edits to the ignored one would have no effect, which is
 * exactly the confusion of a half-finished migration from `svc.toml`.
 */
export async function readManifestFromTree(readFile: FileReader): Promise<ManifestFromTree | null> {
  const texts = await Promise.all(MANIFEST_FILENAMES.map((filename) => readFile(filename)));
  const present = MANIFEST_FILENAMES.filter((_, position) => texts[position] !== null && texts[position] !== undefined);
  const chosen = present[0];
  if (chosen === undefined) return null;
  const text = texts[MANIFEST_FILENAMES.indexOf(chosen)] ?? '';
  const parsed = await recentlyParsed.get(chosen, text, () => parse({ filename: chosen, text }));
  const ignored = present.slice(1);
  const duplicateIssues: Issue[] = ignored.map((other) => ({
    path: '',
    message: `${chosen} and ${other} both exist; only ${chosen} is read, so delete ${other} (move anything still needed into ${chosen})`,
  }));
  return { ...parsed, issues: [...duplicateIssues, ...parsed.issues], ignored };
}
