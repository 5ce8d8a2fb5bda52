import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { followEventStream } from './http-json.js';

describe('followEventStream', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  async function serve(handler: http.RequestListener): Promise<string> {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/event`;
  }

  it('gives up on a runtime that takes the connection but never answers, so its caller can try again', async () => {
    const held: http.ServerResponse[] = [];
    const url = await serve((_request, response) => void held.push(response));
    let opened = false;
    const ended = await Promise.race([
      followEventStream(url, () => {}, new AbortController().signal, () => (opened = true), 200).then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    expect(ended).toBe('ended');
    expect(opened).toBe(false);
    expect(held).toHaveLength(1);
    for (const response of held) response.destroy();
  });

  it('does not take an answer other than 200 for the stream (a runtime still booting answers 503)', async () => {
    const url = await serve((_request, response) => response.writeHead(503).end('booting'));
    let opened = false;
    await followEventStream(url, () => {}, new AbortController().signal, () => (opened = true), 5_000);
    expect(opened).toBe(false);
  });

  it('hands on each event of an open stream, however long it stays quiet, until the stream ends', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"type":"one"}\n\n');
      // Quiet for longer than the open time-out: an open stream is not cut.
      setTimeout(() => response.end('data: {"type":"two"}\n\n'), 400);
    });
    const events: string[] = [];
    let opened = false;
    await followEventStream(url, (data) => events.push(data), new AbortController().signal, () => (opened = true), 100);
    expect(opened).toBe(true);
    expect(events).toEqual(['{"type":"one"}', '{"type":"two"}']);
  });
});
