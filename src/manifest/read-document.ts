/**
 * Text → plain value, for both manifest formats. Syntax problems become issues that name the file,
 * the line and the column, with a hint for the mistakes people actually make in these files.
 */
import { parseDocument, type YAMLError } from 'yaml';
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
  const document = parseDocument(text, {
    uniqueKeys: true,
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
  if (error.code === 'DUPLICATE_KEY') return 'this key appears twice in the same mapping; keep one';
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
