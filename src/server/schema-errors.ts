import type { ErrorObject } from 'ajv';
import type { Issue } from '../errors.js';

export type SchemaError = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params' | 'message'> & { data?: unknown; schema?: unknown };

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

/** Ajv errors in plain sentences, located by JSON pointer. */
export function describeSchemaError(error: SchemaError): Issue {
  const params = error.params as Record<string, unknown>;
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path, message: `required property "${String(params.missingProperty)}" is missing.` };
    case 'additionalProperties':
      return { path: `${path}/${escapePointer(String(params.additionalProperty))}`, message: `unknown property "${String(params.additionalProperty)}" is not allowed here.` };
    case 'type':
      return { path, message: `must be ${typeName(params.type)}${got(error)}.` };
    case 'minLength':
      return { path, message: Number(params.limit) === 1 ? 'must not be empty.' : `must be at least ${String(params.limit)} characters long.` };
    case 'maxLength':
      return { path, message: `must be at most ${String(params.limit)} characters long${typeof error.data === 'string' ? ` (it has ${error.data.length})` : ''}.` };
    case 'pattern':
      return { path, message: `must match the pattern ${String(params.pattern)}${got(error)}.` };
    case 'enum':
      return { path, message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => String(v)).join(', ')}${got(error)}.` };
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

export function describeSchemaErrors(errors: readonly SchemaError[]): Issue[] {
  return errors.map(describeSchemaError);
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
