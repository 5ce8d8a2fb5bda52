import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, validationFailed, type Issue } from '../errors.js';
import { describeSchemaErrors, type SchemaError } from './schema-errors.js';

/** The longest path parameter the router takes (a slug is at most 80 characters, a branch 255). */
export const MAX_PATH_PARAMETER_LENGTH = 500;

interface ValidationFailure {
  validation: SchemaError[];
  validationContext?: string;
}

function isValidationFailure(error: object): error is ValidationFailure {
  return Array.isArray((error as Partial<ValidationFailure>).validation);
}

/** What the failed request was, as far as its error's wording depends on it. */
interface FailedRequest {
  bodyLimit?: number | undefined;
  /** The request came without a body (no bytes and no Content-Type). */
  bodyMissing?: boolean;
}

/** Turns anything thrown in a route into the contract's error body; nothing leaks as a bare 500. */
export function toAppError(error: unknown, { bodyLimit, bodyMissing = false }: FailedRequest = {}): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError && typeof fastifyError === 'object' && 'code' in fastifyError) {
    if (isValidationFailure(fastifyError)) {
      const part = fastifyError.validationContext ?? 'body';
      if (part === 'body' && bodyMissing) {
        return new AppError('BAD_REQUEST', 'This route needs a JSON body and the request has none; send a JSON document with Content-Type: application/json.');
      }
      const issues: Issue[] = describeSchemaErrors(fastifyError.validation);
      if (part === 'params') {
        return new AppError('BAD_REQUEST', `A path parameter is invalid: ${issues.map((i) => `${i.path.slice(1) || 'parameter'} ${i.message}`).join('; ')}`);
      }
      const where = part === 'body' ? '' : `${part} `;
      return validationFailed(
        issues.map((issue) => ({ path: issue.path, message: issue.message })),
        issues[0] ? `The ${where}request is invalid: ${issues[0].path || '(body)'}: ${issues[0].message}` : undefined,
      );
    }
    switch (fastifyError.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return new AppError(
          'PAYLOAD_TOO_LARGE',
          `The request body is larger than this route accepts${bodyLimit ? ` (${formatBytes(bodyLimit)})` : ''}; send a smaller document.`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return new AppError('BAD_REQUEST', 'The Content-Type is not supported here; send the body as application/json.');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return new AppError('BAD_REQUEST', 'The request body is empty; send a JSON document.');
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return new AppError('BAD_REQUEST', 'The Content-Length header does not match the body.');
      case 'FST_ERR_MAX_PARAM_LENGTH':
        return new AppError('BAD_REQUEST', `A part of the URL is longer than ${MAX_PATH_PARAMETER_LENGTH} characters, longer than any slug, id or name in svc; check the URL.`);
      case 'FST_ERR_BAD_URL':
        return new AppError('BAD_REQUEST', 'The URL is not valid percent-encoding; encode path segments with encodeURIComponent.');
      default:
        break;
    }
    if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
      return fastifyError.statusCode === 413
        ? new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.')
        : new AppError('BAD_REQUEST', fastifyError.message);
    }
  }
  return new AppError('INTERNAL', 'svc failed to handle this request; the server log has the details.');
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, { bodyLimit: request.routeOptions.bodyLimit, bodyMissing: request.body === undefined });
    if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error');
    // The answer names no upstream detail (it could reveal what listens on an internal port); the log does.
    if (appError.code === 'UPSTREAM_UNAVAILABLE') request.log.warn({ err: error }, 'a project repository cannot be reached');
    void reply.code(appError.status).type('application/json; charset=utf-8').send(appError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ error: `No route ${request.method} ${request.url.split('?')[0]}; see /openapi.json for the API.`, code: 'NOT_FOUND' });
  });
}
