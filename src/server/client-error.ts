/**
 * Requests Node's HTTP parser refuses before any route sees them (a Content-Length that is not a number,
 * a request line that is not HTTP, headers over the size limit) are answered with the contract's error
 * body too, on the socket itself, and the connection is closed: nothing after the fault can be trusted.
 */
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../errors.js';
import { formatBytes } from './error-handler.js';

interface ParserError extends Error {
  code?: string;
  /** llhttp's own words for what was wrong, e.g. "Invalid character in Content-Length". */
  reason?: string;
}

export function describeClientError(error: ParserError): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request did not arrive in full in time; send it again.');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE', `The request headers are larger than svc accepts (${formatBytes(maxHeaderSize)} in all); send fewer or shorter headers.`);
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      // "Invalid character in Content-Length", "Duplicate Content-Length", "… can't be present with Transfer-Encoding"
      return new AppError(
        'BAD_REQUEST',
        `The Content-Length header is not usable${error.reason ? ` (${error.reason})` : ''}; send it once, as the body length in digits, and not with Transfer-Encoding.`,
      );
    default:
      return new AppError('BAD_REQUEST', `This is not a valid HTTP request${error.reason ? ` (${error.reason})` : ''}; send HTTP/1.1.`);
  }
}

/** Fastify's `clientErrorHandler`: the contract's JSON body, then the connection is closed. */
export function answerClientError(error: ParserError, socket: Duplex): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node links the socket to a response under way (its own clientError handling checks the same): a
  // second response must not be written into the middle of it.
  const underWay = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || underWay?.headersSent) {
    socket.destroy();
    return;
  }
  const appError = describeClientError(error);
  const body = JSON.stringify(appError.toBody());
  socket.end(
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? ''}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
