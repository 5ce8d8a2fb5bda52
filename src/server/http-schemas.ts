import { Type, type TSchema } from 'typebox';
import { errorCatalog } from '../errors.js';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'A sentence saying what went wrong and what to do about it' }),
    code: Type.String({ description: 'Stable machine-readable code; see the README error table' }),
    issues: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { additionalProperties: true, $id: 'ErrorBody' },
);

/** Error responses for a route's OpenAPI description, one per status it can answer. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    const codes = Object.entries(errorCatalog)
      .filter(([, entry]) => entry.status === status)
      .map(([code]) => code);
    out[status] = Type.Object(ErrorBody.properties, { description: codes.join(', '), additionalProperties: true });
  }
  return out;
}

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });

interface OpenApiOperation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
}

/** An object schema with no required property: `{}` satisfies it, so its body may be left out. */
export function requiresNothing(schema: unknown): boolean {
  const required = (schema as { required?: unknown } | undefined)?.required;
  return !Array.isArray(required) || required.length === 0;
}

/**
 * @fastify/swagger marks every request body required; a body whose properties are all optional may
 * be left out (see json-body.ts), and the description says so.
 */
export function markOptionalBodies<T extends { paths?: object }>(openapi: T): T {
  for (const operations of Object.values(openapi.paths ?? {}) as Array<Record<string, OpenApiOperation> | undefined>) {
    for (const operation of Object.values(operations ?? {})) {
      const body = operation?.requestBody;
      const schemas = Object.values(body?.content ?? {});
      if (body && schemas.length > 0 && schemas.every(({ schema }) => requiresNothing(schema))) body.required = false;
    }
  }
  return openapi;
}
