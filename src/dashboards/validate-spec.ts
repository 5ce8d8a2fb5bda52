/**
 * Validates a dashboard spec (spec 1) and explains every violation so that a person, or an agent fixing
 * its own document, knows exactly what to change.
 *
 * The Ajv validators are compiled once, on the first check rather than at import: compiling them costs
 * about 0.6 s of CPU, which every process that imports the server (`svc serve`, each test file) would
 * otherwise pay whether or not it ever checks a dashboard. A valid document costs one pass
 * of generated code; messages are only built when there are errors, and only for the first MAX_ISSUES of them.
 */
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import { MAX_ISSUES, type Issue } from '../errors.js';
import { nulCharacterIssues } from '../json-document.js';
import { escapePointerToken } from '../json-pointer.js';
import { nearestBlockKind } from './nearest-block-kind.js';
import { UUID, isUri } from './string-formats.js';
import {
  BLOCK_KINDS,
  MAX_DEPTH_KEYWORD,
  SLUG_PATTERN,
  blockDefinitions,
  blockSchema,
  blockSchemas,
  dashboardSpecSchema,
  sectionSchema,
  tableRowSchema,
  type DashboardSpec,
} from './spec-schema.js';

export type DashboardSpecValidation =
  | { ok: true; spec: DashboardSpec }
  | { ok: false; issues: Issue[]; total: number };

function createAjv(options: { allErrors: boolean }): Ajv {
  const instance = new Ajv({
    allErrors: options.allErrors,
    discriminator: true,
    strict: true,
    // `type: [...]` unions are how the schema avoids anyOf noise (see spec-schema.ts).
    allowUnionTypes: true,
    // The formatter needs the failing value and the schema around the keyword (title, bounds, keys).
    verbose: true,
    // Messages are written below; skipping Ajv's own keeps the generated code lean.
    messages: false,
    // One function per block kind (see spec-schema.ts): small enough for V8 to optimize.
    inlineRefs: false,
  });
  instance.addFormat('uuid', UUID);
  instance.addFormat('uri', isUri);
  instance.addKeyword({
    keyword: MAX_DEPTH_KEYWORD,
    type: 'object',
    schemaType: 'number',
    errors: false,
    validate: (maxDepth: number, data: unknown) => !nestsDeeperThan(data, maxDepth),
  });
  return instance;
}

/**
 * Every piece is first checked by a validator that stops at the first error: that is the whole cost
 * of a valid document. Only a failing piece is checked again for all of its errors, unless it is so
 * large that listing them all would cost seconds and gigabytes (Ajv cannot cap its error list): then
 * its first problem is reported alone.
 */
/** Pieces with more JSON values than this report only their first problem. */
const LARGE_PIECE_VALUES = 100_000;

/**
 * The document is checked in three kinds of pieces: the top level, each section without its blocks,
 * each block. Ajv gathers the errors of a `$ref`'d schema by concatenating arrays, so one validator
 * over a document with many failing sections or blocks is quadratic (160,000 bad blocks took minutes);
 * here every error list stays per piece and is read once.
 */
function withPropertyUnchecked(schema: { properties: Record<string, unknown> }, property: string): Record<string, unknown> {
  const original = schema.properties[property] as { maxItems?: number };
  const unchecked = { type: 'array', ...(original.maxItems === undefined ? {} : { maxItems: original.maxItems }) };
  const piece: Record<string, unknown> = { ...schema, properties: { ...schema.properties, [property]: unchecked } };
  delete piece.$defs;
  return piece;
}

interface PieceValidator {
  first: ValidateFunction;
  all: ValidateFunction;
}

interface PieceValidators {
  topLevel: PieceValidator;
  section: PieceValidator;
  block: PieceValidator;
  /** A table is the one block that reaches megabytes: when large, its rows are checked one by one. */
  tableWithoutRows: PieceValidator;
  tableRow: PieceValidator;
}

let compiled: PieceValidators | undefined;

function pieceValidators(): PieceValidators {
  if (compiled) return compiled;
  const allErrors = createAjv({ allErrors: true });
  const firstError = createAjv({ allErrors: false });
  const compilePiece = (schema: AnySchemaObject): PieceValidator => ({ first: firstError.compile(schema), all: allErrors.compile(schema) });
  compiled = {
    topLevel: compilePiece(withPropertyUnchecked(dashboardSpecSchema, 'sections')),
    section: compilePiece(withPropertyUnchecked(sectionSchema, 'blocks')),
    block: compilePiece({ ...blockSchema, $defs: blockDefinitions }),
    tableWithoutRows: compilePiece(withPropertyUnchecked(blockSchemas.table, 'rows')),
    tableRow: compilePiece(tableRowSchema),
  };
  return compiled;
}

/** Properties with more JSON values than this are left out when the rest of a large piece is listed. */
const LARGE_PROPERTY_VALUES = 10_000;

/** `unchecked` names the property whose items are checked as pieces of their own. */
function checkPiece(piece: PieceValidator, value: unknown, path: string, collector: IssueCollector, unchecked?: string): void {
  if (piece.first(value)) return;
  if (hasMoreValuesThan(value, LARGE_PIECE_VALUES, unchecked)) {
    checkLargePiece(piece, value, path, collector, unchecked);
    return;
  }
  try {
    piece.all(value);
  } catch (error) {
    // A pattern run over a multi-megabyte string can exhaust the regex stack; its first problem still stands.
    if (!(error instanceof RangeError)) throw error;
    collector.add(path, piece.first.errors, { onlyFirst: true });
    return;
  }
  collector.add(path, piece.all.errors);
}

/**
 * A large piece that failed: every problem outside its large properties (a chart's `kind`, `height`,
 * `unit` beside a `series` of a million points), listed from the piece without them; then the first
 * problem inside them, if that is where the piece first failed, marked as the only one listed there.
 */
function checkLargePiece(piece: PieceValidator, value: unknown, path: string, collector: IssueCollector, unchecked: string | undefined): void {
  const firstError = piece.first.errors?.[0];
  const large = isPlainObject(value) ? Object.keys(value).filter((key) => key !== unchecked && hasMoreValuesThan(value[key], LARGE_PROPERTY_VALUES)) : [];
  if (!isPlainObject(value) || large.length === 0) {
    collector.add(path, piece.first.errors, { onlyFirst: true });
    return;
  }
  const rest: Record<string, unknown> = { ...value };
  for (const key of large) delete rest[key];
  const leftOut = new Set(large);
  if (!piece.all(rest)) {
    const missingOnlyHere = (error: AjvError) => error.keyword === 'required' && error.instancePath === '' && leftOut.has(String(error.params.missingProperty));
    collector.add(path, (piece.all.errors ?? []).filter((error) => !missingOnlyHere(error)));
  }
  const inLargeProperty = (error: AjvError) => large.some((key) => error.instancePath === `/${escapePointerToken(key)}` || error.instancePath.startsWith(`/${escapePointerToken(key)}/`));
  if (firstError && inLargeProperty(firstError)) collector.add(path, [firstError], { onlyFirst: true });
}

function checkBlock(block: unknown, path: string, collector: IssueCollector, mayBeLarge: boolean): void {
  const { block: blockPiece, tableWithoutRows: tableWithoutRowsPiece, tableRow: tableRowPiece } = pieceValidators();
  if (!mayBeLarge || !isPlainObject(block) || block.type !== 'table' || !Array.isArray(block.rows) || !hasMoreValuesThan(block, LARGE_PIECE_VALUES)) {
    checkPiece(blockPiece, block, path, collector);
    return;
  }
  checkPiece(tableWithoutRowsPiece, block, path, collector, 'rows');
  block.rows.forEach((row: unknown, rowIndex) => checkPiece(tableRowPiece, row, `${path}/rows/${rowIndex}`, collector));
}

/**
 * `sourceText`, the JSON the document was parsed from, lets a document without the escape `\u0000`
 * skip the search for NUL characters (JSON cannot carry one unescaped).
 */
export function validateDashboardSpec(doc: unknown, options: { sourceText?: string } = {}): DashboardSpecValidation {
  const { topLevel: topLevelPiece, section: sectionPiece } = pieceValidators();
  const collector = new IssueCollector();
  // Every JSON value takes a character and all but the first a separator: a short text has no large piece.
  const mayBeLarge = options.sourceText === undefined || options.sourceText.length > 2 * LARGE_PIECE_VALUES;
  if (options.sourceText === undefined || options.sourceText.includes('\\u0000')) collector.addNulCharacters(doc);
  checkPiece(topLevelPiece, doc, '', collector, 'sections');
  const sections = isPlainObject(doc) && Array.isArray(doc.sections) ? doc.sections : [];
  sections.forEach((section: unknown, sectionIndex) => {
    const sectionPath = `/sections/${sectionIndex}`;
    checkPiece(sectionPiece, section, sectionPath, collector, 'blocks');
    const blocks = isPlainObject(section) && Array.isArray(section.blocks) ? section.blocks : [];
    blocks.forEach((block: unknown, blockIndex) => checkBlock(block, `${sectionPath}/blocks/${blockIndex}`, collector, mayBeLarge));
  });
  // Every piece of the document passed its part of dashboardSpecSchema, so the whole conforms.
  if (collector.total === 0) return { ok: true, spec: doc as DashboardSpec };
  return { ok: false, issues: collector.issues, total: collector.total };
}

/**
 * Counts JSON values depth-first and stops past `limit`, so the cost is bounded whatever the input.
 * `skip` leaves out one property of the value itself (the part checked as pieces of their own).
 */
function hasMoreValuesThan(value: unknown, limit: number, skip?: string): boolean {
  // Values counted plus values waiting on the stack: past the limit, the answer is known.
  const stack: unknown[] = [value];
  let counted = 0;
  let isRoot = true;
  while (stack.length > 0) {
    const current = stack.pop();
    counted += 1;
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      if (counted + stack.length + current.length > limit) return true;
      for (let index = 0; index < current.length; index += 1) stack.push(current[index]);
    } else {
      const record = current as Record<string, unknown>;
      for (const key in record) {
        if (isRoot && key === skip) continue;
        if (counted + stack.length >= limit) return true;
        stack.push(record[key]);
      }
    }
    isRoot = false;
  }
  return counted > limit;
}

/**
 * True when objects and arrays nest more than `maxDepth` levels (the value itself is level 1).
 * Stops descending at the limit, so it is safe on any input, cyclic objects included.
 */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, maxDepth - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (nestsDeeperThan(record[key], maxDepth - 1)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Ajv errors → issues

type AjvError = ErrorObject<string, Record<string, unknown>, unknown>;

/**
 * Turns Ajv errors into issues: one per error, except where Ajv reports one mistake twice (a number
 * that breaks both its type and its bounds, an empty string that also fails a pattern, an object in a
 * union that is not even close to the object branch). Such errors are adjacent in Ajv's output, so
 * comparing with the previous one suffices.
 */
class IssueCollector {
  readonly issues: Issue[] = [];
  total = 0;
  private readonly isStranger = strangerCheck();

  /**
   * `prefix` is the pointer of the piece the errors are about; their paths are relative to it.
   * `onlyFirst` marks a piece too large to list every problem of.
   */
  addNulCharacters(doc: unknown): void {
    for (const issue of nulCharacterIssues(doc, MAX_ISSUES)) {
      this.total += 1;
      this.issues.push(issue);
    }
  }

  add(prefix: string, errors: readonly AjvError[] | null | undefined, options: { onlyFirst?: boolean } = {}): void {
    let previousMergeKey: string | undefined;
    for (const error of errors ?? []) {
      const stranger = this.isStranger(error);
      const mergeKey = mergeKeyOf(error, stranger);
      if (mergeKey !== undefined && mergeKey === previousMergeKey) continue;
      previousMergeKey = mergeKey;
      this.total += 1;
      if (this.issues.length < MAX_ISSUES) {
        const message = messageOf(error, stranger);
        this.issues.push({
          path: prefix + pathOf(error, stranger),
          message: options.onlyFirst ? `${message} (This part of the document is too large to list every problem; fix this one and publish again to see the next.)` : message,
        });
      }
    }
  }
}

function mergeKeyOf(error: AjvError, stranger: boolean): string | undefined {
  switch (error.keyword) {
    case 'type':
    case 'minimum':
    case 'maximum':
      return `${error.instancePath}#number`;
    case 'required':
    case 'additionalProperties':
      return stranger ? `${error.instancePath}#union` : undefined;
    // An empty slug breaks minLength and the pattern; "must not be empty" says it all.
    case 'minLength':
      return `${error.instancePath}#empty`;
    case 'pattern':
      return error.data === '' ? `${error.instancePath}#empty` : undefined;
    default:
      return undefined;
  }
}

function pathOf(error: AjvError, stranger: boolean): string {
  const { instancePath, keyword, params } = error;
  if (keyword === 'additionalProperties' && !stranger) {
    return `${instancePath}/${escapePointerToken(String(params.additionalProperty))}`;
  }
  // A missing property is pointed at where it belongs (contract §2: `/sections/0/blocks/2/value`).
  if (keyword === 'required' && !stranger) return `${instancePath}/${escapePointerToken(String(params.missingProperty))}`;
  if (keyword === 'discriminator') return `${instancePath}/${String(params.tag)}`;
  return instancePath;
}

function messageOf(error: AjvError, stranger: boolean): string {
  const { keyword, params, data } = error;
  const schema = error.parentSchema ?? {};
  switch (keyword) {
    case 'required':
      return stranger ? typeMessage(schema, data) : `required property "${String(params.missingProperty)}" is missing.`;
    case 'additionalProperties':
      if (stranger) return typeMessage(schema, data);
      return (
        `unknown property ${describe(String(params.additionalProperty))} is not allowed on ${objectName(error)}; ` +
        `allowed: ${propertyNames(schema).join(', ')}.`
      );
    case 'type':
      return typeMessage(schema, data);
    case 'minimum':
    case 'maximum':
      return numberMessage(schema, data);
    case 'maxLength':
      return `must be at most ${plural(Number(params.limit), 'character')} long (it has ${lengthOf(data)}).`;
    case 'minLength':
      return Number(params.limit) === 1
        ? 'must not be empty.'
        : `must be at least ${plural(Number(params.limit), 'character')} long (it has ${lengthOf(data)}).`;
    case 'maxItems':
      return `must have at most ${plural(Number(params.limit), 'item')} (it has ${itemCount(data)}).`;
    case 'minItems':
      return `must have at least ${plural(Number(params.limit), 'item')} (it has ${itemCount(data)}).`;
    case 'enum':
      return `must be one of: ${listValues(schema.enum)} (got ${describe(data)}).`;
    case 'const':
      return `must be ${describe(schema.const)} (got ${describe(data)}).`;
    case 'format':
      return formatMessage(String(params.format), data);
    case 'pattern':
      return schema.pattern === SLUG_PATTERN
        ? `must be lowercase letters and digits in words joined by single hyphens, such as "weekly-report" (got ${describe(data)}).`
        : `must match the pattern ${String(schema.pattern)} (got ${describe(data)}).`;
    case 'discriminator':
      return blockKindMessage(params.tagValue);
    case MAX_DEPTH_KEYWORD:
      return `must not nest objects and arrays more than ${String(schema[MAX_DEPTH_KEYWORD])} levels deep.`;
    default:
      return `breaks the "${keyword}" rule of the dashboard spec schema.`;
  }
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  null: 'null',
  array: 'an array',
  object: 'an object',
};

function typeMessage(schema: AnySchemaObject, data: unknown): string {
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 1 && (types[0] === 'integer' || types[0] === 'number')) return numberMessage(schema, data);
  const nouns = types.map((type) => (type === 'object' ? objectNoun(schema) : (TYPE_NOUNS[String(type)] ?? String(type))));
  return `must be ${joinAlternatives(nouns)} (got ${describe(data)}).`;
}

/** "a stat delta {value, direction, tone}": the expected object's name and its properties. */
function objectNoun(schema: AnySchemaObject): string {
  if (typeof schema.title !== 'string') return 'an object';
  const names = propertyNames(schema);
  return names.length > 0 ? `${withArticle(schema.title)} {${names.join(', ')}}` : `${withArticle(schema.title)} object`;
}

/** Type and bounds of a number in one sentence, so a 30.5 for "integer 1-24" reads as one problem. */
function numberMessage(schema: AnySchemaObject, data: unknown): string {
  const noun = schema.type === 'integer' ? 'an integer' : 'a number';
  const { minimum, maximum } = schema;
  const range =
    typeof minimum === 'number' && typeof maximum === 'number'
      ? ` from ${minimum} to ${maximum}`
      : typeof minimum === 'number'
        ? ` of at least ${minimum}`
        : typeof maximum === 'number'
          ? ` of at most ${maximum}`
          : '';
  return `must be ${noun}${range} (got ${describe(data)}).`;
}

function formatMessage(format: string, data: unknown): string {
  switch (format) {
    case 'uri':
      return `must be a valid URI such as https://example.com/x (got ${describe(data)}).`;
    case 'uuid':
      return `must be a UUID (got ${describe(data)}).`;
    default:
      return `must be a valid ${format} (got ${describe(data)}).`;
  }
}

const BLOCK_KIND_LIST = BLOCK_KINDS.join(', ');

function blockKindMessage(tagValue: unknown): string {
  if (tagValue === undefined) return `required property "type" is missing; it names the block kind, one of: ${BLOCK_KIND_LIST}.`;
  if (typeof tagValue !== 'string') return `must be a string naming the block kind (got ${describe(tagValue)}); use one of: ${BLOCK_KIND_LIST}.`;
  const nearest = nearestBlockKind(tagValue);
  // One suggestion reads faster than 31 names; the list is for a name nothing resembles.
  if (nearest) return `${describe(tagValue)} is not a block kind; did you mean "${nearest}"?`;
  return `${describe(tagValue)} is not a block kind; use one of: ${BLOCK_KIND_LIST}.`;
}

/**
 * Whether an error is about an object offered where a union allows "… or an object" (a table value, a
 * statusMatrix cell) that shares no property with that object: then the mistake is the value's form,
 * not the object's details. Remembers each object's answer: an object with a million unknown keys
 * yields a million errors, and scanning its keys for each would be quadratic.
 */
function strangerCheck(): (error: AjvError) => boolean {
  const answers = new WeakMap<object, boolean>();
  return (error) => {
    const schema = error.parentSchema;
    const { data } = error;
    if (!schema || !Array.isArray(schema.type) || !isPlainObject(data)) return false;
    if (error.keyword !== 'required' && error.keyword !== 'additionalProperties') return false;
    let answer = answers.get(data);
    if (answer === undefined) {
      answer = sharesNoKey(data, schema.properties ?? {});
      answers.set(data, answer);
    }
    return answer;
  };
}

function sharesNoKey(data: Record<string, unknown>, known: Record<string, unknown>): boolean {
  for (const key in data) if (Object.hasOwn(known, key)) return false;
  return true;
}

function objectName(error: AjvError): string {
  const title = error.parentSchema?.title;
  if (typeof title !== 'string') return 'this object';
  // There is one document; "a dashboard spec" would suggest there could be several.
  return title === 'dashboard spec' ? `the ${title}` : withArticle(title);
}

function propertyNames(schema: AnySchemaObject): string[] {
  return isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
}

// ---------------------------------------------------------------------------------------------
// Wording helpers

function withArticle(noun: string): string {
  // "an html block", "an svc context": the initialisms are read letter by letter.
  return /^(?:[aeiou]|html\b|svc\b)/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function joinAlternatives(nouns: string[]): string {
  if (nouns.length <= 1) return nouns.join('');
  return `${nouns.slice(0, -1).join(', ')} or ${nouns[nouns.length - 1]}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? values.map((value) => String(value)).join(', ') : '';
}

const MAX_QUOTED_LENGTH = 60;
const MAX_LISTED_KEYS = 5;

/** A short rendering of the offending value: enough to recognise it, never the whole of a huge one. */
function describe(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > MAX_QUOTED_LENGTH ? `${value.slice(0, MAX_QUOTED_LENGTH)}…` : value;
    return JSON.stringify(shown);
  }
  // JSON has no Infinity: a literal like 1e400 is parsed as one, being beyond the largest double.
  if (value === Infinity || value === -Infinity) return `${value < 0 ? '-' : ''}1e309 or beyond, more than a number can hold`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (isPlainObject(value)) {
    const keys: string[] = [];
    for (const key in value) {
      if (keys.length === MAX_LISTED_KEYS) {
        keys.push('…');
        break;
      }
      keys.push(JSON.stringify(key));
    }
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.join(', ')}`;
  }
  return `a ${typeof value}`;
}

/** Length in code points, counted the way Ajv's maxLength counts (a surrogate pair is one). */
function lengthOf(value: unknown): number {
  if (typeof value !== 'string') return 0;
  let count = 0;
  for (let i = 0; i < value.length; i += 1) {
    count += 1;
    const isHighSurrogate = (value.charCodeAt(i) & 0xfc00) === 0xd800;
    if (isHighSurrogate && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i += 1;
  }
  return count;
}

function itemCount(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
