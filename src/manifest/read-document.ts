/**
 * Text → plain value, for both manifest formats. Syntax problems become issues that name the file,
 * the line and the column, with a hint for the mistakes people actually make in these files.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import { parse as parseToml, TomlError } from 'smol-toml';
import type { Issue } from '../errors.js';

export type ManifestFormat = 'yaml' | 'toml';

export interface ReadDocumentResult {
  /** The parsed value; undefined when the text could not be read (then `issues` says why). */
  value: unknown;
  issues: Issue[];
}

/** Aliases multiply a small file into a huge value ("billion laughs"); a manifest never needs many. */
const MAX_YAML_ALIASES = 100;
/** Inline tables and arrays; a real manifest is three levels deep. */
const MAX_TOML_DEPTH = 32;
/** One mistake often cascades into many parser errors; the first few locate it. */
const MAX_SYNTAX_ISSUES = 10;

export function readDocument(filename: string, format: ManifestFormat, text: string): ReadDocumentResult {
  try {
    return format === 'yaml' ? readYaml(filename, text) : readToml(filename, text);
  } catch (error) {
    // The parsers guard against deep nesting themselves; this is the last line for anything they miss.
    if (error instanceof RangeError) {
      return { value: undefined, issues: [{ path: '', message: `${filename} is nested too deeply to read.` }] };
    }
    throw error;
  }
}

function readYaml(filename: string, text: string): ReadDocumentResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, {
    lineCounter,
    // yaml's own duplicate check compares every key with every other one in its mapping, which a file of
    // a hundred thousand keys turns into minutes; duplicateKeyIssues does the same job in one pass.
    uniqueKeys: false,
    // `<<: *defaults` is how YAML users share settings between entries.
    merge: true,
    prettyErrors: true,
    // yaml reports some oddities (collection keys) through process warnings; the parser is the wrong
    // place to write to the process log. ('silent' would also drop the multiple-documents error.)
    logLevel: 'error',
  });
  if (document.errors.length > 0) {
    return { value: undefined, issues: yamlIssues(filename, text, document.errors) };
  }
  const duplicates = duplicateKeyIssues(filename, document, lineCounter);
  if (duplicates.length > 0) return { value: undefined, issues: duplicates };
  try {
    return { value: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }), issues: [] };
  } catch (error) {
    if (error instanceof ReferenceError) {
      return {
        value: undefined,
        issues: [{ path: '', message: `${filename} repeats aliases (*name) too often to expand; write the entries out.` }],
      };
    }
    throw error;
  }
}

/**
 * A key written twice in one mapping: YAML forbids it and the plain value would silently keep the last.
 * Keys are compared as the plain value will name them, so `1:` and `"1":` collide as they would there.
 * Walks with an explicit stack: a deeply nested document must not exhaust the call stack here.
 */
function duplicateKeyIssues(filename: string, document: Document.Parsed, lineCounter: LineCounter): Issue[] {
  const found: Array<{ offset: number; key: string }> = [];
  const pending: unknown[] = [document.contents];
  while (pending.length > 0 && found.length < MAX_SYNTAX_ISSUES) {
    const node = pending.pop();
    if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    } else if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        pending.push(pair.value);
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        // Several merge keys are how YAML merges several anchors; they are not duplicates.
        if (key === '<<') continue;
        if (seen.has(key)) found.push({ offset: pair.key.range?.[0] ?? 0, key });
        seen.add(key);
      }
    }
  }
  return found
    .sort((first, second) => first.offset - second.offset)
    .map(({ offset, key }) => {
      const { line, col } = lineCounter.linePos(offset);
      const shown = JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
      return { path: '', message: `${filename} line ${line}, column ${col}: the key ${shown} appears twice in the same mapping; keep one` };
    });
}

function yamlIssues(filename: string, text: string, errors: readonly YAMLError[]): Issue[] {
  const lines = text.split(/\r\n|\r|\n/);
  const reportedLines = new Set<number>();
  const issues: Issue[] = [];
  for (const error of errors) {
    const position = error.linePos?.[0];
    const line = position?.line ?? 0;
    if (reportedLines.has(line)) continue;
    reportedLines.add(line);
    const where = position ? `line ${position.line}, column ${position.col}` : 'somewhere';
    issues.push({
      path: '',
      message: `${filename} ${where}: ${yamlReason(error)}${yamlHint(error, lines[line - 1] ?? '')}`,
    });
    if (issues.length === MAX_SYNTAX_ISSUES) break;
  }
  return issues;
}

/** The parser's sentence without the position and code excerpt it appends (the issue states both). */
function yamlReason(error: YAMLError): string {
  const firstLine = error.message.split('\n')[0] ?? '';
  const reason = firstLine.replace(/ at line \d+, column \d+:?$/, '').trim();
  if (/Maximum call stack/i.test(reason)) return 'the document is nested too deeply';
  if (error.code === 'MULTIPLE_DOCS') return 'the file holds more than one YAML document (a second "---"); keep one';
  return reason.replace(/\.$/, '');
}

function yamlHint(error: YAMLError, lineText: string): string {
  // `cron: * * * * * *` reads as an alias; it is the classic YAML cron mistake.
  if ((error.code === 'BAD_ALIAS' || /alias/i.test(error.message)) && /:\s*\*/.test(lineText)) {
    return '. A value that starts with "*" must be quoted, e.g. cron: "0 */5 * * * *"';
  }
  if (error.code === 'TAB_AS_INDENT') return '. Indent with spaces';
  return '';
}

function readToml(filename: string, text: string): ReadDocumentResult {
  try {
    return { value: parseToml(text, { maxDepth: MAX_TOML_DEPTH }), issues: [] };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const firstLine = error.message.split('\n')[0] ?? '';
    const reason = firstLine.replace(/^Invalid TOML document:\s*/, '').replace(/\.\s*aborting\.?$/, '').trim();
    return {
      value: undefined,
      issues: [{ path: '', message: `${filename} line ${error.line}, column ${error.column}: ${reason}${tomlHint(text)}` }],
    };
  }
}

/** Two `[triggers]` tables fail as a redefinition; the fix is the array-of-tables syntax. */
function tomlHint(text: string): string {
  return /^[ \t]*\[[ \t]*triggers[ \t]*\][ \t]*(?:#.*)?$/m.test(text)
    ? '. Declare each trigger with [[triggers]] (double brackets), not [triggers]'
    : '';
}
