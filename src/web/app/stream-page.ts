/**
 * Sends a page in pieces as they are ready: the frame and what is known at once first, then each slow part
 * (a merge preview, a large diff) where its marker stands. The browser shows the top of the page while the
 * rest is computed, so the first byte does not wait for the slowest part.
 */
import { Readable } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip } from '../http-helpers.js';
import type { Page } from '../layout.js';
import { pageHeaders } from '../send-page.js';

/** The marker of slot `index` in a page's body; replaced by the slot's HTML when it is ready. */
export function slotMarker(index: number): string {
  return `<!--svc-slot-${index}-->`;
}

async function* pieces(html: string, slots: ReadonlyArray<Promise<string>>): AsyncGenerator<string> {
  let rest = html;
  for (const [index, slot] of slots.entries()) {
    const at = rest.indexOf(slotMarker(index));
    if (at === -1) continue;
    yield rest.slice(0, at);
    rest = rest.slice(at + slotMarker(index).length);
    yield await slot;
  }
  yield rest;
}

export function streamPage(request: FastifyRequest, reply: FastifyReply, status: number, page: Page, slots: ReadonlyArray<Promise<string>>): FastifyReply {
  // A slot that fails later must not go unhandled while an earlier one is awaited; the stream reports it.
  for (const slot of slots) slot.catch(() => undefined);
  const body = Readable.from(pieces(page.html, slots));
  pageHeaders(reply, page.csp).code(status).header('cache-control', 'no-store').header('vary', 'Accept-Encoding');
  if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(body);
  // Each piece is flushed as it comes, so compression does not hold back the top of the page.
  const gzip = createGzip({ level: 4, flush: constants.Z_SYNC_FLUSH });
  body.on('error', (error) => gzip.destroy(error));
  return reply.header('content-encoding', 'gzip').send(body.pipe(gzip));
}
