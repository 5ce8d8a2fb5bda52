import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as text, kept so a document can be stored exactly as sent. */
    rawJsonText?: string;
  }
}

/**
 * JSON bodies are read as bytes so that invalid UTF-8 is refused (Node would otherwise replace it with
 * U+FFFD and store something the client never sent), and parsed with prototype-poisoning protection.
 */
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
    if (bytes.length === 0) {
      done(new AppError('BAD_REQUEST', 'The request body is empty; send a JSON document.'), undefined);
      return;
    }
    if (!isUtf8(bytes)) {
      done(new AppError('BAD_REQUEST', 'The request body is not valid UTF-8; encode the JSON document as UTF-8.'), undefined);
      return;
    }
    try {
      const text = bytes.toString('utf8');
      const value: unknown = sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
      request.rawJsonText = text;
      done(null, value);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      done(new AppError('BAD_REQUEST', `The request body is not valid JSON: ${reason}.`), undefined);
    }
  });
}
