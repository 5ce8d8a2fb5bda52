/**
 * A URL with a NUL character (%00) in its path or query is refused before it reaches a route: no id, slug,
 * name or query value in svc holds one, and PostgreSQL cannot even compare a text column with such a value
 * (it failed the query, and the request answered 500), where SQLite answered 404. Every route, on both
 * databases, now answers 400 and says which character.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

export function refuseNulInUrl(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    // Percent-encoded, in either case of hex digit it has none; a raw NUL never gets past the HTTP parser.
    if (request.url.includes('%00')) {
      done(new AppError('BAD_REQUEST', 'The URL has a NUL character (%00), which no id, slug, name or query value in svc contains; check the URL.'));
      return;
    }
    done();
  });
}
