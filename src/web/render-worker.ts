/**
 * A render thread: draws dashboard pages (ECharts is milliseconds per chart) away from the thread that
 * answers requests, and compresses them once. See page-renderer.ts.
 */
import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { renderDashboardPage } from './dashboard-page.js';
import type { RenderReply, RenderRequest } from './page-renderer.js';

if (!parentPort) throw new Error('render-worker.js runs as a worker thread of svc serve');
const port = parentPort;

port.on('message', (request: RenderRequest) => {
  let reply: RenderReply;
  try {
    const page = renderDashboardPage(request.specText, request.meta);
    const body = Buffer.from(page.html, 'utf8');
    reply = { id: request.id, ok: true, csp: page.csp, body, gzip: gzipSync(body, { level: 6 }) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies RenderReply);
