/**
 * A Docker engine that goes away and comes back, as svc sees it, without restarting the shared engine:
 * svc talks to the engine through this unix socket, which passes every byte on to the real one. Closing
 * the door drops its connections and refuses new ones (the engine is down); opening it again is the
 * engine back. What a restart does to containers (they stop) the test does to its own through the engine.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export class EngineDoor {
  readonly socketPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-engine-')), 'docker.sock');
  private server: net.Server | null = null;
  private readonly open = new Set<net.Socket>();

  constructor(private readonly engineSocket: string) {}

  get address(): string {
    return `unix://${this.socketPath}`;
  }

  async openDoor(): Promise<void> {
    fs.rmSync(this.socketPath, { force: true });
    const server = net.createServer((client) => {
      const engine = net.connect(this.engineSocket);
      for (const socket of [client, engine]) {
        this.open.add(socket);
        socket.on('close', () => this.open.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(engine).pipe(client);
      client.on('close', () => engine.destroy());
      engine.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.socketPath, resolve));
    this.server = server;
  }

  async closeDoor(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.open) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(this.socketPath, { force: true });
  }

  async remove(): Promise<void> {
    await this.closeDoor();
    fs.rmSync(path.dirname(this.socketPath), { recursive: true, force: true });
  }
}
