/**
 * A streaming reverse proxy on node:http: request and response bodies are piped, never buffered (SSE
 * reaches the client event by event), and WebSocket upgrades are spliced into a raw TCP connection.
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);

function forwardHeaders(headers: http.IncomingHttpHeaders, drop: readonly string[]): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  const connectionTokens = String(headers.connection ?? '').toLowerCase().split(',').map((token) => token.trim());
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || drop.includes(name) || connectionTokens.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

function jsonError(response: http.ServerResponse, status: number, error: string, code: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify({ error, code }));
}

export function proxyRequest(request: http.IncomingMessage, response: http.ServerResponse, port: number, path: string, dropHeaders: readonly string[]): void {
  const headers = forwardHeaders(request.headers, dropHeaders);
  const upstream = http.request({ host: '127.0.0.1', port, method: request.method, path, headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardHeaders(answer.headers, []));
    // Headers go out at once, so a stream that starts quiet (SSE) is open for the client immediately.
    response.flushHeaders();
    answer.pipe(response);
    answer.on('error', () => response.destroy());
  });
  // Small writes (an SSE event, a WebSocket frame) leave at once: Nagle's algorithm would hold one back
  // until the previous one is acknowledged. Node's own defaults say so too, but a default can change.
  upstream.setNoDelay(true);
  response.socket?.setNoDelay(true);
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    jsonError(response, 502, `Nothing answered on port ${port} inside the sandbox (${error.code ?? error.message}).`, 'BAD_GATEWAY');
  });
  request.pipe(upstream);
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
}

export function proxyUpgrade(request: http.IncomingMessage, socket: Duplex, head: Buffer, port: number, path: string, dropHeaders: readonly string[]): void {
  // A raw connection has Nagle's algorithm on unless told otherwise: frames would wait for acknowledgements.
  const upstream = net.connect({ port, host: '127.0.0.1', noDelay: true }, () => {
    const lines = [`${request.method} ${path} HTTP/1.1`];
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index]!;
      if (dropHeaders.includes(name.toLowerCase())) continue;
      lines.push(`${name}: ${request.rawHeaders[index + 1]}`);
    }
    upstream.write(lines.join('\r\n') + '\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  const end = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.on('error', () => {
    if (socket.writable) socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n' + JSON.stringify({ error: `Nothing answered on port ${port} inside the sandbox.`, code: 'BAD_GATEWAY' }));
    end();
  });
  if (socket instanceof net.Socket) socket.setNoDelay(true);
  socket.on('error', end);
  upstream.on('close', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
}
