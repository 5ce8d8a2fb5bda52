import type { ErrorObject } from 'ajv';
import type { Issue } from '../errors.js';

export type SchemaError = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params' | 'message'> & {
  schemaPath?: string;
  data?: unknown;
  schema?: unknown;
  parentSchema?: unknown;
};

/** A short description of a JSON value for "(got …)" in messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function typeName(type: unknown): string {
  const names: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    integer: 'an integer',
    boolean: 'true or false',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  const list = Array.isArray(type) ? type : [type];
  return list.map((t) => names[String(t)] ?? String(t)).join(' or ');
}

function got(error: SchemaError): string {
  return 'data' in error ? ` (got ${describeValue(error.data)})` : '';
}

/** What a value matching a pattern is, in words, by pattern: an error names that, not a regular expression. */
const patternMeanings = new Map<string, string>();

/**
 * A schema pattern with the words its errors use instead of the expression: `must be <meaning>`, e.g.
 * "must be a git branch name (got "a..b")".
 */
export function patternMeaning(pattern: string, meaning: string): string {
  patternMeanings.set(pattern, meaning);
  return pattern;
}

/** Keys a literal may carry besides its value (TypeBox's Literal is `{type, const}`). */
const LITERAL_KEYS = new Set(['const', 'type', 'title', 'description']);

/** The values of an `anyOf` of literals (a TypeBox union of Literal), or null for any other `anyOf`. */
function literalChoices(members: unknown): unknown[] | null {
  if (!Array.isArray(members) || members.length === 0) return null;
  const values: unknown[] = [];
  for (const member of members) {
    if (typeof member !== 'object' || member === null || !('const' in member)) return null;
    if (Object.keys(member).some((key) => !LITERAL_KEYS.has(key))) return null;
    values.push((member as { const: unknown }).const);
  }
  return values;
}

/**
 * One sentence for a value outside a list of choices (`enum`, or an `anyOf` of literals). A schema
 * with a `title` names what the value should be: `"admin" is not a capability; use one of: …`.
 */
function choiceMessage(error: SchemaError, values: readonly unknown[]): string {
  const list = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  const title = (error.parentSchema as { title?: unknown } | undefined)?.title;
  if (typeof title === 'string' && title !== '' && 'data' in error) {
    return `${describeValue(error.data)} is not ${/^[aeiou]/i.test(title) ? 'an' : 'a'} ${title}; use one of: ${list}.`;
  }
  return `must be one of: ${list}${got(error)}.`;
}

/** Ajv errors in plain sentences, located by JSON pointer. */
export function describeSchemaError(error: SchemaError): Issue {
  const params = error.params as Record<string, unknown>;
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required':
      // Pointed at where the property belongs (contract §2: `/sections/0/blocks/2/value`).
      return { path: `${path}/${escapePointer(String(params.missingProperty))}`, message: `required property "${String(params.missingProperty)}" is missing.` };
    case 'additionalProperties':
      return { path: `${path}/${escapePointer(String(params.additionalProperty))}`, message: `unknown property "${String(params.additionalProperty)}" is not allowed here.` };
    case 'type':
      return { path, message: `must be ${typeName(params.type)}${got(error)}.` };
    case 'minLength':
      return { path, message: Number(params.limit) === 1 ? 'must not be empty.' : `must be at least ${String(params.limit)} characters long.` };
    case 'maxLength':
      return { path, message: `must be at most ${String(params.limit)} characters long${typeof error.data === 'string' ? ` (it has ${error.data.length})` : ''}.` };
    case 'pattern':
      return { path, message: `must ${patternMeanings.has(String(params.pattern)) ? `be ${patternMeanings.get(String(params.pattern))}` : `match the pattern ${String(params.pattern)}`}${got(error)}.` };
    case 'enum':
      return { path, message: choiceMessage(error, params.allowedValues as unknown[]) };
    case 'anyOf': {
      const choices = literalChoices(error.schema);
      return { path, message: choices ? choiceMessage(error, choices) : `${error.message ?? 'is invalid'}.` };
    }
    case 'const':
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}${got(error)}.` };
    case 'minimum':
    case 'exclusiveMinimum':
      return { path, message: `must be ${error.keyword === 'minimum' ? 'at least' : 'greater than'} ${String(params.limit)}${got(error)}.` };
    case 'maximum':
    case 'exclusiveMaximum':
      return { path, message: `must be ${error.keyword === 'maximum' ? 'at most' : 'less than'} ${String(params.limit)}${got(error)}.` };
    case 'minItems':
      return { path, message: `must have at least ${String(params.limit)} item${Number(params.limit) === 1 ? '' : 's'}.` };
    case 'maxItems':
      return { path, message: `must have at most ${String(params.limit)} items.` };
    case 'uniqueItems':
      return { path, message: `must not repeat items (items ${String(params.j)} and ${String(params.i)} are equal).` };
    case 'format':
      return { path, message: `must be a valid ${String(params.format)}${got(error)}.` };
    default:
      return { path, message: `${error.message ?? 'is invalid'}.` };
  }
}

/**
 * Every error as an issue, except that a value outside a union of literals is one issue naming the
 * choices, not one per literal ("must be equal to constant", …) plus "must match a schema in anyOf".
 */
export function describeSchemaErrors(errors: readonly SchemaError[]): Issue[] {
  const choiceUnions = errors.filter((error) => error.keyword === 'anyOf' && error.schemaPath && literalChoices(error.schema));
  const insideChoiceUnion = (error: SchemaError) =>
    choiceUnions.some((union) => union !== error && union.instancePath === error.instancePath && error.schemaPath?.startsWith(`${union.schemaPath}/`));
  return errors.filter((error) => !insideChoiceUnion(error)).map(describeSchemaError);
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
