/**
 * The manifest parser: text of `svc.yaml` / `svc.toml` → normalized manifest, per-trigger errors for the
 * listing, and every issue for the merge gate. Pure: no clock, no I/O (except `readManifestFromTree`,
 * which only calls the reader it is given), so the gate and the scheduler read a branch identically.
 */
import type { Issue } from '../errors.js';
import {
  DEFAULT_RUNTIME_CONFIG_DIR,
  TRIGGER_SLUG_PATTERN,
  type NormalizedManifest,
  type NormalizedTrigger,
} from './manifest-schema.js';
import { readDocument, type ManifestFormat } from './read-document.js';
import { checkAgents, checkDefaultAgent, checkEnv, checkRuntime, checkTopLevelKeys } from './manifest-sections.js';
import { checkSandbox, emptySandbox } from './sandbox-section.js';
import { checkTriggerEntry, newTriggerCheckCache } from './trigger-entry.js';
import { jsonPointer } from '../json-pointer.js';
import { describeValue, isRecord } from './wording.js';

/**
 * Where a manifest may live, in the order they are looked for. `svc.yml` is accepted because editors and
 * people write it as often as `svc.yaml`; ignoring it would make every trigger in it silently vanish.
 */
export const MANIFEST_FILENAMES = ['svc.yaml', 'svc.yml', 'svc.toml'] as const;
export type ManifestFilename = (typeof MANIFEST_FILENAMES)[number];

/** Manifests are a few kilobytes; the cap keeps a hostile branch from costing the merge gate seconds. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

const slugPattern = new RegExp(TRIGGER_SLUG_PATTERN);

export interface ParseManifestInput {
  filename: ManifestFilename;
  text: string;
}

/** One entry the triggers listing cannot show, or (index null) a problem that hides every entry. */
export interface TriggerError {
  /** Position in `triggers` (0-based, as in the issue paths); null for a document-level problem. */
  index: number | null;
  /** The slug as written when it is text, else null. */
  slug: string | null;
  message: string;
}

export interface ParsedManifest {
  filename: ManifestFilename;
  /** What is valid, with defaults applied; bad trigger entries are left out, bad sections get their defaults. */
  manifest: NormalizedManifest;
  /** Same array as `manifest.triggers`: the entries that can run. */
  triggers: NormalizedTrigger[];
  /** For the triggers listing: one per bad entry (all its problems in one message), plus document-level ones. */
  errors: TriggerError[];
  /** Every problem, for the merge gate (422 MANIFEST_INVALID). Empty means the manifest is valid. */
  issues: Issue[];
}

export function formatOf(filename: ManifestFilename): ManifestFormat {
  return filename.endsWith('.toml') ? 'toml' : 'yaml';
}

function emptyManifest(): NormalizedManifest {
  return { triggers: [], agents: {}, default_agent: null, runtime: { config_dir: DEFAULT_RUNTIME_CONFIG_DIR }, env: [], sandbox: emptySandbox() };
}

/** A result where nothing could be read: the issue also goes to `errors`, or the listing would look empty for no reason. */
function unreadable(filename: ManifestFilename, issues: Issue[]): ParsedManifest {
  const manifest = emptyManifest();
  return {
    filename,
    manifest,
    triggers: manifest.triggers,
    errors: issues.map((issue) => ({ index: null, slug: null, message: issue.message })),
    issues,
  };
}

export function parseManifest({ filename, text }: ParseManifestInput): ParsedManifest {
  const format = formatOf(filename);
  // Checked in characters first so a huge string is refused without encoding it.
  if (text.length > MAX_MANIFEST_BYTES || Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES) {
    return unreadable(filename, [
      { path: '', message: `${filename} is larger than ${MAX_MANIFEST_BYTES / 1024} KiB; a manifest this large is not read` },
    ]);
  }
  const withoutByteOrderMark = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const read = readDocument(filename, format, withoutByteOrderMark);
  if (read.issues.length > 0) return unreadable(filename, read.issues);

  // An empty file, or YAML holding only comments, is an empty manifest.
  const document = read.value ?? {};
  if (!isRecord(document)) {
    return unreadable(filename, [
      { path: '', message: `${filename} must be a mapping with sections such as triggers, agents and env; it holds ${describeValue(document)}` },
    ]);
  }

  const issues: Issue[] = [];
  checkTopLevelKeys(document, issues);
  const runtime = checkRuntime(document['runtime'], format, issues);
  const env = checkEnv(document['env'], format, issues);
  const sandbox = checkSandbox(document['sandbox'], format, issues);
  const { agents, declared } = checkAgents(document['agents'], format, issues);
  const defaultAgent = checkDefaultAgent(document['default_agent'], declared, issues);

  const errors: TriggerError[] = [];
  const triggers: NormalizedTrigger[] = [];
  const entries = triggerEntries(document['triggers'], format);
  if ('problem' in entries) {
    issues.push(entries.problem);
    errors.push({ index: null, slug: null, message: entries.problem.message });
  } else {
    const cache = newTriggerCheckCache();
    const firstIndexOfSlug = new Map<string, number>();
    entries.list.forEach((entry: unknown, index) => {
      const result = checkTriggerEntry(entry, { index, declaredAgents: declared, defaultAgent, cache });
      // The first entry with a slug keeps it; later ones are the duplicates to fix.
      if (result.slug !== null && slugPattern.test(result.slug)) {
        const earlier = firstIndexOfSlug.get(result.slug);
        if (earlier === undefined) firstIndexOfSlug.set(result.slug, index);
        else {
          result.problems.push({
            path: jsonPointer('triggers', index, 'slug'),
            reason: `slug ${JSON.stringify(result.slug)} is already used by entry ${earlier + 1}; slugs must be unique`,
          });
        }
      }
      if (result.problems.length === 0 && result.trigger) {
        triggers.push(result.trigger);
        return;
      }
      const label = triggerLabel(result.slug, index);
      for (const problem of result.problems) issues.push({ path: problem.path, message: `${label}: ${problem.reason}` });
      errors.push({ index, slug: result.slug, message: `${label}: ${entryProblems(result.problems.map((problem) => problem.reason))}` });
    });
  }

  return {
    filename,
    manifest: { triggers, agents, default_agent: defaultAgent, runtime, env, sandbox },
    triggers,
    errors,
    issues,
  };
}

/** `trigger "nightly" (entry 3)`: the slug when there is one, the 1-based position always. */
function triggerLabel(slug: string | null, index: number): string {
  if (slug === null || slug === '') return `trigger entry ${index + 1}`;
  const shown = slug.length > 80 ? `${slug.slice(0, 80)}…` : slug;
  return `trigger ${JSON.stringify(shown)} (entry ${index + 1})`;
}

function triggerEntries(value: unknown, format: ManifestFormat): { list: readonly unknown[] } | { problem: Issue } {
  if (value === undefined || value === null) return { list: [] };
  if (Array.isArray(value)) return { list: value };
  if (format === 'toml' && isRecord(value)) {
    return {
      problem: {
        path: '/triggers',
        message:
          'svc.toml declares [triggers] with single brackets, which makes one table instead of a list; ' +
          'write [[triggers]] (double brackets) above each trigger',
      },
    };
  }
  const advice =
    format === 'toml'
      ? 'write [[triggers]] (double brackets) above each trigger'
      : 'start each trigger with "- ", e.g. "- slug: nightly"';
  return { problem: { path: '/triggers', message: `triggers must be a list; ${advice}; got ${describeValue(value)}` } };
}

/**
 * An entry's problems in one line. Each reason starts in lower case (often with a field's name, which must keep
 * its case), so several are numbered rather than run together as sentences.
 */
function entryProblems(reasons: readonly string[]): string {
  if (reasons.length === 1) return reasons[0] ?? '';
  return `${reasons.length} problems: ${reasons.map((reason, index) => `(${index + 1}) ${reason}`).join('; ')}`;
}
