import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { parseJsonBytes } from '../json-document.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes the JSON body as bytes and parses it itself (dashboards parse and validate large
     * documents on a worker thread). The content type and encoding are still checked here.
     */
    jsonBodyAsBytes?: boolean;
  }
}

/** JSON bodies are read as bytes and parsed by parseJsonBytes (UTF-8 and prototype-poisoning checks). */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // Only JSON is accepted by default; routes that take other bodies (git, forms) register their own parsers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/i, { parseAs: 'buffer' }, (request, body, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.toLowerCase() !== 'identity') {
      done(new AppError('BAD_REQUEST', `Content-Encoding ${encoding} is not supported for JSON bodies; send the body uncompressed.`), undefined);
      return;
    }
    const bytes = body as Buffer;
    if (request.routeOptions.config.jsonBodyAsBytes) {
      done(null, bytes);
      return;
    }
    const parsed = parseJsonBytes(bytes);
    if (parsed.ok) done(null, parsed.value);
    else done(new AppError('BAD_REQUEST', parsed.message), undefined);
  });
}
