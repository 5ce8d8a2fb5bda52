/**
 * HTTP calls of the daemon on node:http rather than fetch: fetch loads undici, about 10 MB of resident
 * memory in a process whose budget is 60 MB.
 */
import http from 'node:http';
import https from 'node:https';

export interface JsonResponse {
  status: number;
  text: string;
  body: any;
}

export function requestJson(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {}): Promise<JsonResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string | number> = { accept: 'application/json', ...options.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, { method: options.method ?? 'GET', headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {}
        resolve({ status: response.statusCode ?? 0, text, body });
      });
    });
    request.setTimeout(options.timeoutMs ?? 10_000, () => request.destroy(new Error(`${options.method ?? 'GET'} ${target.pathname} timed out`)));
    request.on('error', reject);
    request.end(payload);
  });
}

/** How long the runtime may take to answer a request for its event stream. */
export const EVENT_STREAM_OPEN_TIMEOUT_MS = 10_000;

/**
 * Follows a server-sent event stream, handing each `data:` payload to `onData`; resolves when the
 * stream ends or fails, or is not answered within `openTimeoutMs`; rejects never. `abort` ends it.
 */
export function followEventStream(
  url: string,
  onData: (data: string) => void,
  signal: AbortSignal,
  onOpen: () => void = () => {},
  openTimeoutMs = EVENT_STREAM_OPEN_TIMEOUT_MS,
): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    // A runtime that takes the connection but never answers it would hold its caller (and a boot waiting
    // for the stream to open) forever: the attempt ends, and the caller tries again.
    const opening = setTimeout(() => request.destroy(), openTimeoutMs);
    const request = http.get(url, { headers: { accept: 'text/event-stream' }, agent: false }, (response) => {
      clearTimeout(opening);
      if (response.statusCode !== 200) {
        // Not the stream (a runtime still booting answers 503): nothing to follow yet.
        response.resume();
        return resolve();
      }
      response.setEncoding('utf8');
      onOpen();
      let buffer = '';
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
          if (data) onData(data);
        }
      });
      response.on('end', () => resolve());
      response.on('error', () => resolve());
      response.on('close', () => resolve());
    });
    request.on('error', () => {
      clearTimeout(opening);
      resolve();
    });
    signal.addEventListener('abort', () => request.destroy(), { once: true });
  });
}
