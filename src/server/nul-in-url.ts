/**
 * A URL with a NUL character (%00) in its path or query is refused before it reaches a route: no id, slug,
 * name or query value in svc holds one, and PostgreSQL cannot even compare a text column with such a value
 * (the query fails), so a route that looked one up answered 500 there and 404 on SQLite. Refused here, every
 * route answers 400 on both databases and says which character.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

export function refuseNulInUrl(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    // `%00` has no hex letters to spell in another case; a raw NUL byte never gets past the HTTP parser.
    if (request.url.includes('%00')) {
      done(new AppError('BAD_REQUEST', 'The URL has a NUL character (%00), which no id, slug, name or query value in svc contains; check the URL.'));
      return;
    }
    done();
  });
}
