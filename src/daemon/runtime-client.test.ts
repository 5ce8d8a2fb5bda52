import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeClient } from './runtime-client.js';

describe('RuntimeClient.waitAnswering', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** A runtime that, like one still starting, never answers the first request it takes, and answers the rest. */
  async function startingRuntime(): Promise<{ client: RuntimeClient; hung: http.IncomingMessage[] }> {
    const hung: http.IncomingMessage[] = [];
    const server = http.createServer((request, response) => {
      if (hung.length === 0) return void hung.push(request);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { client: new RuntimeClient((server.address() as AddressInfo).port), hung };
  }

  it('reports the runtime answering while a request it took earlier still hangs', async () => {
    const { client, hung } = await startingRuntime();
    expect(await client.waitAnswering(() => true)).toBe(true);
    // The boot went on without waiting for the hung probe's deadline: that request is still open.
    expect(hung).toHaveLength(1);
    expect(hung[0]!.socket.destroyed).toBe(false);
  });

  it('stops probing once the boot is no longer wanted', async () => {
    const server = http.createServer(() => {});
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let checks = 0;
    expect(await new RuntimeClient((server.address() as AddressInfo).port).waitAnswering(() => ++checks <= 3)).toBe(false);
    expect(checks).toBe(4);
  });
});
