/**
 * The web UI's forms: url-encoded bodies of a few fields, read by @fastify/formbody. A field that holds a NUL
 * character is refused with a 400 page before any route reads it: svc stores no text with one, PostgreSQL
 * refuses it in any text value (a secret's value or a session's prompt posted with one answered 500 there),
 * and the JSON API refuses it as well (json-body.ts).
 */
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Sign-in forms are a few fields; anything larger is not one. */
const FORM_BODY_LIMIT = 16 * 1024;

export async function registerFormBodies(scope: FastifyInstance): Promise<void> {
  await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  scope.addHook('preValidation', (request, _reply, done) => {
    const field = fieldWithNul(request.body);
    if (field === null) {
      done();
      return;
    }
    done(new AppError('BAD_REQUEST', `The form field ${JSON.stringify(field)} has a NUL character (U+0000), which svc never stores; remove it and send the form again.`));
  });
}

/** The name of the first field whose name or value holds NUL, or null. */
function fieldWithNul(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  for (const [name, value] of Object.entries(body)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (name.includes('\u0000') || values.some((item) => typeof item === 'string' && item.includes('\u0000'))) return name;
  }
  return null;
}
