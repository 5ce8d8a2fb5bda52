/**
 * The git smart-HTTP protocol for hosted repositories (what `git http-backend` does), on plain Node
 * streams so any HTTP framework can mount it: the route authenticates and authorizes (see
 * requiredCapability), maps the project to a repository path, and hands over request and response.
 *
 *   GET  …/info/refs?service=git-upload-pack|git-receive-pack → advertiseRefs
 *   POST …/git-upload-pack | …/git-receive-pack               → runService
 *
 * Protocol v2 is supported by passing the client's `Git-Protocol` header through as GIT_PROTOCOL.
 * The dumb protocol (GET info/refs without `service`, objects/…) is not served.
 * What pushes may do: the repository's own receive policy, set by initBare (no non-fast-forward updates
 * on any branch), and, for svc's hosted repositories, the push rules and size limit of guarded-receive.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { userValue } from '../git/arguments.js';
import { runGuardedReceive, type ReceiveGuard } from './guarded-receive.js';
import { FLUSH_PKT, pktLine } from '../git/receive-commands.js';
import { runGit, startGit } from '../git/run-git.js';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

/** Transfers of big repositories are long; a stuck client is still cut off eventually. */
export const DEFAULT_SERVICE_TIMEOUT_MS = 15 * 60_000;

export function parseGitService(value: unknown): GitService | null {
  return value === 'git-upload-pack' || value === 'git-receive-pack' ? value : null;
}

/**
 * The capability (contract §2) a token needs for a request. Reading (clone, fetch) needs project.read;
 * pushing needs project.gitops.push, already for the ref advertisement of git-receive-pack, so that a
 * client without it is asked for credentials before it builds a pack.
 */
export function requiredCapability(service: GitService): 'project.read' | 'project.gitops.push' {
  return service === 'git-receive-pack' ? 'project.gitops.push' : 'project.read';
}

export function advertisementContentType(service: GitService): string {
  return `application/x-git-${service.slice('git-'.length)}-advertisement`;
}

export function requestContentType(service: GitService): string {
  return `application/x-git-${service.slice('git-'.length)}-request`;
}

export function resultContentType(service: GitService): string {
  return `application/x-git-${service.slice('git-'.length)}-result`;
}

/** Ref advertisements and pack results must never be served from a cache (same headers as git http-backend). */
export const NO_CACHE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
  Pragma: 'no-cache',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
};

/**
 * The `Git-Protocol` request header as GIT_PROTOCOL (e.g. `version=2`), or undefined when absent or not of
 * the `key=value:key=value` form git sends; anything else is dropped rather than handed to git.
 */
export function gitProtocolFromHeader(header: string | readonly string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(':') : header;
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) return undefined;
  return /^[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?(:[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?)*$/.test(value) ? value : undefined;
}

/** Whether the client asked for protocol v2; v2 advertisements carry no `# service=` preamble. */
function isProtocolV2(gitProtocol: string | undefined): boolean {
  return gitProtocol?.split(':').includes('version=2') ?? false;
}

/**
 * The git subcommand and its literal options. `--strict` makes upload-pack use exactly the given directory
 * (no `<dir>/.git` or `<dir>.git` guessing); receive-pack has no such fallback and no such option.
 */
function serviceCommand(service: GitService): string[] {
  return service === 'git-upload-pack' ? ['upload-pack', '--strict'] : ['receive-pack'];
}

function repositoryArgument(repoPath: string): string {
  // Absolute, so it starts with "/" and cannot be read as an option.
  return userValue('repository path', path.resolve(repoPath));
}

export interface ServiceOptions {
  /** The client's protocol request (see gitProtocolFromHeader). */
  gitProtocol?: string;
  timeoutMs?: number;
}

/** The body of `GET info/refs?service=<service>`, to be sent with advertisementContentType(service). */
export async function advertiseRefs(repoPath: string, service: GitService, options: ServiceOptions = {}): Promise<Buffer> {
  const result = await runGit(
    [...serviceCommand(service), '--stateless-rpc', '--advertise-refs', repositoryArgument(repoPath)],
    { env: options.gitProtocol ? { GIT_PROTOCOL: options.gitProtocol } : {}, timeoutMs: options.timeoutMs },
  );
  // Like git http-backend: a v0/v1 advertisement over HTTP starts with "# service=…" and a flush;
  // a v2 capability advertisement does not.
  if (isProtocolV2(options.gitProtocol)) return result.stdout;
  return Buffer.concat([pktLine(`# service=${service}\n`), FLUSH_PKT, result.stdout]);
}

export interface RunServiceOptions extends ServiceOptions {
  /** The request body, already decoded (see decodeRequestBody). */
  body: Readable;
  /** Where git's answer goes; headers (resultContentType) must already be set. Ended when git finishes. */
  response: Writable;
}

/**
 * Run one stateless-rpc exchange: the request body is git's stdin, its stdout is the response body.
 * If the response closes early (the client went away) git is stopped. Rejects with a GitError when git
 * fails; by then part of the answer may have been sent, which the git client reports as a protocol error.
 */
export async function runService(repoPath: string, service: GitService, options: RunServiceOptions): Promise<void> {
  const git = startGit([...serviceCommand(service), '--stateless-rpc', repositoryArgument(repoPath)], {
    env: options.gitProtocol ? { GIT_PROTOCOL: options.gitProtocol } : {},
    timeoutMs: options.timeoutMs ?? DEFAULT_SERVICE_TIMEOUT_MS,
  });
  const stdin = git.stdin;
  if (!stdin) throw new Error('git was started without a stdin pipe');
  const stopGit = (): void => git.kill();
  options.response.once('close', stopGit);
  options.body.once('error', stopGit);
  options.body.pipe(stdin);
  try {
    await Promise.all([pipeline(git.stdout, options.response), git.finished]);
  } finally {
    options.response.off('close', stopGit);
    options.body.unpipe(stdin);
  }
}

/**
 * The request body as git expects it: git clients gzip large upload-pack requests (`Content-Encoding:
 * gzip`). Returns null for an encoding git never sends (answer 415).
 */
export function decodeRequestBody(body: Readable, contentEncoding: string | undefined): Readable | null {
  const encoding = contentEncoding?.trim().toLowerCase() ?? '';
  if (encoding === '' || encoding === 'identity') return body;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const gunzip = createGunzip();
    body.once('error', (error) => gunzip.destroy(error));
    return body.pipe(gunzip);
  }
  return null;
}

export type SmartHttpRequest =
  | { action: 'advertise'; service: GitService }
  | { action: 'service'; service: GitService };

/**
 * Which smart-HTTP exchange a request is, from its method, the path after the repository (`/info/refs`,
 * `/git-upload-pack`, …) and the `service` query parameter; null for anything else (dumb protocol included).
 */
export function classifySmartHttpRequest(request: {
  method: string;
  subPath: string;
  serviceParameter?: string | null;
}): SmartHttpRequest | null {
  const method = request.method.toUpperCase();
  if ((method === 'GET' || method === 'HEAD') && request.subPath === '/info/refs') {
    const service = parseGitService(request.serviceParameter);
    return service ? { action: 'advertise', service } : null;
  }
  if (method === 'POST') {
    const service = parseGitService(request.subPath.replace(/^\//, ''));
    return service ? { action: 'service', service } : null;
  }
  return null;
}

function sendPlain(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...NO_CACHE_HEADERS });
  response.end(`${message}\n`);
}

export interface ServeSmartHttpOptions extends Omit<ServiceOptions, 'gitProtocol'> {
  /** The part of the URL path after the repository, e.g. `/info/refs` or `/git-receive-pack`. */
  subPath: string;
  /** The `service` query parameter, for `/info/refs`. */
  serviceParameter?: string | null;
  /** Check pushes against svc's push rules and size limit before git reads them (hosted repositories). */
  receive?: ReceiveGuard;
}

/**
 * A complete handler on node:http request/response objects (Fastify: `reply.hijack()` and pass
 * `request.raw`/`reply.raw`). The caller has already checked the token against
 * requiredCapability(classifySmartHttpRequest(...).service).
 */
export async function serveSmartHttp(
  repoPath: string,
  request: IncomingMessage,
  response: ServerResponse,
  options: ServeSmartHttpOptions,
): Promise<void> {
  const exchange = classifySmartHttpRequest({
    method: request.method ?? 'GET',
    subPath: options.subPath,
    serviceParameter: options.serviceParameter,
  });
  if (!exchange) return sendPlain(response, 404, 'Not a git smart-HTTP request.');
  const gitProtocol = gitProtocolFromHeader(request.headers['git-protocol']);

  if (exchange.action === 'advertise') {
    const body = await advertiseRefs(repoPath, exchange.service, { gitProtocol, timeoutMs: options.timeoutMs });
    response.writeHead(200, {
      'Content-Type': advertisementContentType(exchange.service),
      'Content-Length': String(body.length),
      ...NO_CACHE_HEADERS,
    });
    response.end(request.method?.toUpperCase() === 'HEAD' ? undefined : body);
    return;
  }

  const contentType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (contentType !== requestContentType(exchange.service)) {
    return sendPlain(response, 415, `Expected Content-Type ${requestContentType(exchange.service)}.`);
  }
  const body = decodeRequestBody(request, request.headers['content-encoding']);
  if (!body) return sendPlain(response, 415, 'Unsupported Content-Encoding.');
  if (exchange.service === 'git-receive-pack' && options.receive) {
    const declared = Number(request.headers['content-length']);
    return runGuardedReceive(body, response, {
      ...options.receive,
      gitArgs: [...serviceCommand(exchange.service), '--stateless-rpc', repositoryArgument(repoPath)],
      env: gitProtocol ? { GIT_PROTOCOL: gitProtocol } : {},
      timeoutMs: options.timeoutMs ?? DEFAULT_SERVICE_TIMEOUT_MS,
      declaredLength: request.headers['content-length'] !== undefined && Number.isSafeInteger(declared) ? declared : null,
      headers: { 'Content-Type': resultContentType(exchange.service), ...NO_CACHE_HEADERS },
    });
  }
  response.writeHead(200, { 'Content-Type': resultContentType(exchange.service), ...NO_CACHE_HEADERS });
  await runService(repoPath, exchange.service, { body, response, gitProtocol, timeoutMs: options.timeoutMs });
}
