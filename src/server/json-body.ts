import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, MAX_ISSUES, validationFailed } from '../errors.js';
import { nulCharacterIssues, parseJsonBytes, withoutByteOrderMark } from '../json-document.js';
import { requiresNothing } from './http-schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes the JSON body as bytes and parses it itself (dashboards parse and validate large
     * documents on a worker thread). The content type and encoding are still checked here.
     */
    jsonBodyAsBytes?: boolean;
  }
}

/** The charset parameter of a Content-Type, quoted or not (RFC 9110 §8.3.1). */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * Whether a route can go without a body: it has no body schema, or one whose properties are all
 * optional (merge's `message`, a PATCH). Then no body means `{}`, whatever the Content-Type says,
 * since many HTTP clients send `Content-Type: application/json` on every request.
 */
export function bodyIsOptional(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema?.body;
  return !schema || requiresNothing(schema);
}

/** JSON bodies are read as bytes and parsed by parseJsonBytes (UTF-8 and prototype-poisoning checks). */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body && bodyIsOptional(request)) request.body = {};
  });
  // Only JSON is accepted by default; routes that take other bodies (git, forms) register their own parsers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(?:\s*;|$)/i, { parseAs: 'buffer' }, (request, body, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.toLowerCase() !== 'identity') {
      done(new AppError('BAD_REQUEST', `Content-Encoding ${encoding} is not supported for JSON bodies; send the body uncompressed.`), undefined);
      return;
    }
    const charset = CHARSET_PARAMETER.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      done(new AppError('BAD_REQUEST', `The Content-Type says charset=${charset}, but JSON bodies are read as UTF-8; encode the body as UTF-8 and send charset=utf-8 or no charset.`), undefined);
      return;
    }
    const bytes = body as Buffer;
    if (withoutByteOrderMark(bytes).length === 0 && bodyIsOptional(request)) {
      done(null, undefined);
      return;
    }
    if (request.routeOptions.config.jsonBodyAsBytes) {
      done(null, bytes);
      return;
    }
    const parsed = parseJsonBytes(bytes);
    if (!parsed.ok) {
      // Lone surrogates are listed like NUL characters below: SQLite and PostgreSQL would store them differently.
      done('loneSurrogates' in parsed ? validationFailed(parsed.loneSurrogates) : new AppError('BAD_REQUEST', parsed.message), undefined);
      return;
    }
    // PostgreSQL cannot store U+0000 in text; refused here for every route, so both databases agree.
    const nulIssues = parsed.text.includes('\\u0000') ? nulCharacterIssues(parsed.value, MAX_ISSUES) : [];
    if (nulIssues.length > 0) done(validationFailed(nulIssues), undefined);
    else done(null, parsed.value);
  });
}
