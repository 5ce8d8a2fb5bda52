/**
 * The Docker Engine API over HTTP, with node:http only: a unix socket by default, or the engine that
 * DOCKER_HOST names (`unix:///path` or `tcp://host:port`), so sandboxes may run on another machine.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';

const API_VERSION = 'v1.41';

export interface EngineResponse {
  status: number;
  body: any;
  text: string;
}

export class EngineError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The engine did not answer (not running, restarting, unreachable, or stuck), as opposed to answering with an error. */
export class EngineUnreachableError extends Error {}

export class DockerEngine {
  readonly socketPath: string | undefined;
  readonly host: string | undefined;
  readonly port: number | undefined;

  constructor(readonly address: string = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock') {
    if (address.startsWith('unix://')) this.socketPath = address.slice('unix://'.length);
    else if (address.startsWith('tcp://') || address.startsWith('http://')) {
      const url = new URL(address.replace(/^tcp:/, 'http:'));
      this.host = url.hostname;
      this.port = Number(url.port || 2375);
    } else throw new Error(`DOCKER_HOST must be unix:///path or tcp://host:port (got ${JSON.stringify(address)})`);
  }

  /** Whether the engine runs on this machine (its containers' addresses are then reachable from here). */
  get local(): boolean {
    return this.socketPath !== undefined || this.host === '127.0.0.1' || this.host === 'localhost';
  }

  /** One request; `body` is JSON, or a stream sent as-is (a tar archive) with `contentType`. */
  request(method: string, path: string, body?: unknown, options: { contentType?: string; timeoutMs?: number } = {}): Promise<EngineResponse> {
    return new Promise((resolve, reject) => {
      const streamed = body !== undefined && typeof (body as Readable).pipe === 'function';
      const payload = body === undefined || streamed ? undefined : Buffer.from(JSON.stringify(body));
      const request = http.request(
        {
          socketPath: this.socketPath,
          host: this.host,
          port: this.port,
          method,
          path: `/${API_VERSION}${path}`,
          headers: {
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            ...(streamed ? { 'content-type': options.contentType ?? 'application/x-tar' } : {}),
          },
          timeout: options.timeoutMs ?? 60_000,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              // Streams of JSON lines (build, import) stay text.
            }
            resolve({ status: response.statusCode ?? 0, body: parsed, text });
          });
          response.on('error', (error) => reject(this.unreachable(error)));
        },
      );
      request.on('timeout', () => request.destroy(new EngineUnreachableError(`the Docker engine at ${this.address} did not answer ${method} ${path.split('?')[0]} in time`)));
      request.on('error', (error) => reject(this.unreachable(error)));
      if (streamed) (body as Readable).pipe(request);
      else request.end(payload);
    });
  }

  /** A connection that failed or broke off, in words that say what to do (the bare `connect ECONNREFUSED …` does not). */
  private unreachable(error: Error): EngineUnreachableError {
    if (error instanceof EngineUnreachableError) return error;
    return new EngineUnreachableError(`the Docker engine at ${this.address} does not answer (${error.message}): start it (dockerd, or systemctl start docker) or point DOCKER_HOST at one`);
  }

  /** A request whose status must be one of `ok`; otherwise an EngineError with the engine's message. */
  async expect(ok: readonly number[], method: string, path: string, body?: unknown, options?: { contentType?: string; timeoutMs?: number }): Promise<EngineResponse> {
    const response = await this.request(method, path, body, options);
    if (!ok.includes(response.status)) {
      const message = (response.body as { message?: string } | null)?.message ?? response.text.slice(0, 500);
      throw new EngineError(response.status, `Docker engine: ${method} ${path.split('?')[0]} answered ${response.status}: ${message}`);
    }
    return response;
  }
}
