import type { FastifyReply } from 'fastify';
import type { Page } from './layout.js';

/** Headers every HTML page carries, whatever its content. */
export function pageHeaders(reply: FastifyReply, csp: string): FastifyReply {
  return reply
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8');
}

/** Sends a page that is built per request (sign-in, index, errors): never stored by caches. */
export function sendPage(reply: FastifyReply, status: number, page: Page): FastifyReply {
  return pageHeaders(reply, page.csp).code(status).header('cache-control', 'no-store').send(page.html);
}
