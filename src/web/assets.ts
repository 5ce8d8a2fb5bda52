/**
 * Static assets of the web UI (the stylesheet and the client script), built once at start-up and
 * served under a content-hashed name with a year-long immutable cache: a new build gets new URLs.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { CLIENT_SCRIPT, THEME_BOOT_SCRIPT } from './client-script.js';
import { buildStylesheet } from './styles.js';
import { APP_SCRIPT } from './app/app-script.js';
import { APP_STYLES } from './app/app-styles.js';
import { acceptsGzip } from './http-helpers.js';

export interface Asset {
  /** URL path, e.g. /assets/app.3f2a9c1b.css */
  path: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

function makeAsset(name: string, extension: string, type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  return { path: `/assets/${name}.${shortHash(text)}.${extension}`, type, body, gzip: gzipSync(body, { level: 9 }) };
}

export const stylesheetAsset = makeAsset('app', 'css', 'text/css; charset=utf-8', buildStylesheet() + APP_STYLES);
export const scriptAsset = makeAsset('app', 'js', 'text/javascript; charset=utf-8', CLIENT_SCRIPT);
/** The project pages' own script (live sessions and merge previews), which dashboard pages do not load. */
export const projectScriptAsset = makeAsset('project', 'js', 'text/javascript; charset=utf-8', APP_SCRIPT);

/** CSP source for the inline theme bootstrap in <head>. */
export const themeBootHash = `'sha256-${createHash('sha256').update(THEME_BOOT_SCRIPT, 'utf8').digest('base64')}'`;

/**
 * Changes whenever the markup or the assets could: part of every page ETag, so a deploy never answers
 * 304 with a page that points at assets of the previous build.
 */
export const BUILD_ID = shortHash(`${stylesheetAsset.path}${scriptAsset.path}${projectScriptAsset.path}${THEME_BOOT_SCRIPT}`).slice(0, 8);

const byPath = new Map<string, Asset>([stylesheetAsset, scriptAsset, projectScriptAsset].map((asset) => [asset.path, asset]));

export function assetRoutes(app: FastifyInstance): void {
  app.get('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = byPath.get(request.url.split('?')[0] ?? '');
    if (!asset) {
      return reply.code(404).type('text/plain; charset=utf-8').send('No such asset; reload the page to get the current ones.');
    }
    reply.header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'Accept-Encoding').type(asset.type);
    if (acceptsGzip(request.headers['accept-encoding'])) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  });
}
