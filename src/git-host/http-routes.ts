/**
 * The git smart-HTTP host (contract §4): `<base>/git/<project_id>.git` serves clone, fetch and push of
 * hosted projects.
 *
 *   GET  /git/<id>.git/info/refs?service=git-upload-pack|git-receive-pack
 *   POST /git/<id>.git/git-upload-pack
 *   POST /git/<id>.git/git-receive-pack
 *
 * Authentication is HTTP Basic with any user name and a user or project token as the password (a Bearer
 * header works too); reading needs project.read, pushing project.gitops.push. Without credentials the
 * answer is 401 with `WWW-Authenticate: Basic realm="svc"`, which is what makes git ask its credential
 * helper (or use the ones in the URL) and retry.
 *
 * A mirror project (one with repo_url) has no repository here: its URL answers 404 saying to clone repo_url.
 *
 * Errors follow the contract's JSON body, except that a git client (User-Agent `git/…`) gets the same
 * sentence as text/plain: git prints text/plain error bodies to the user as "remote: …" lines and
 * hides anything else, so that is the only way the person at the terminal learns why.
 *
 * Request bodies are never buffered: the content-type parsers below hand the raw request stream to git,
 * so Fastify's bodyLimit (which applies to bodies it reads itself) never cuts off a large push.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loadProjectFor } from '../accounts/access.js';
import type { ActorContext, Services } from '../context.js';
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import { GIT_SURFACE, requireActor } from '../server/credentials.js';
import { toAppError } from '../server/error-handler.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { classifySmartHttpRequest, NO_CACHE_HEADERS, requestContentType, requiredCapability, serveSmartHttp } from './smart-http.js';

const AUTHENTICATE_CHALLENGE = 'Basic realm="svc"';

interface RepositoryParams {
  repository: string;
}

interface InfoRefsQuery {
  service?: string;
}

/** The same actor a Bearer token gets on the REST API, from the credentials git sends. */
export function authenticateGitRequest(services: Services, request: FastifyRequest): Promise<ActorContext> {
  return requireActor(services, request, GIT_SURFACE);
}

/** `<uuid>.git` (or a bare `<uuid>`, which some tools produce) → the project id; null for anything else. */
function projectIdFromRepository(repository: string): string | null {
  const id = repository.endsWith('.git') ? repository.slice(0, -'.git'.length) : repository;
  return isUuid(id) ? id.toLowerCase() : null;
}

function isGitClient(request: FastifyRequest): boolean {
  return /^git\//i.test(request.headers['user-agent'] ?? '');
}

function isUnsupportedMediaType(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
}

function sendGitError(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
  const appError = isUnsupportedMediaType(error)
    ? new AppError('BAD_REQUEST', `A git service request needs Content-Type ${requestContentType('git-upload-pack')} or ${requestContentType('git-receive-pack')}.`)
    : toAppError(error);
  if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'git smart-HTTP request failed');
  // A body we refused before reading it is drained, so the client sees our answer instead of a broken pipe.
  if (!request.raw.readableEnded) request.raw.resume();
  void reply.code(appError.status).headers(NO_CACHE_HEADERS);
  if (appError.status === 401) void reply.header('WWW-Authenticate', AUTHENTICATE_CHALLENGE);
  if (isGitClient(request)) {
    void reply.type('text/plain; charset=utf-8').send(`${appError.message}\n`);
  } else {
    void reply.type('application/json; charset=utf-8').send(appError.toBody());
  }
}

/** The routes of the git host; register them in a scope of their own (they replace the body parsers and error handler). */
export function gitHttpRoutes(app: FastifyInstance, services: Services): void {
  app.setErrorHandler((error, request, reply) => sendGitError(request, reply, error));
  // The body is git's own protocol stream: hand it through untouched for runService to pipe into git.
  app.addContentTypeParser(
    [requestContentType('git-upload-pack'), requestContentType('git-receive-pack')],
    (_request, payload, done) => done(null, payload),
  );

  async function serve(request: FastifyRequest<{ Params: RepositoryParams; Querystring: InfoRefsQuery }>, reply: FastifyReply, subPath: string): Promise<void> {
    const exchange = classifySmartHttpRequest({ method: request.method, subPath, serviceParameter: request.query.service ?? null });
    if (!exchange) {
      throw new AppError('NOT_FOUND', 'svc serves git over the smart HTTP protocol only; use git 1.6.6 or later.');
    }
    const projectId = projectIdFromRepository(request.params.repository);
    const ctx = await authenticateGitRequest(services, request);
    if (projectId === null) {
      throw new AppError('NOT_FOUND', `No repository ${JSON.stringify(request.params.repository)}; clone URLs look like ${services.config.baseUrl}/git/<project id>.git.`);
    }
    const pushing = exchange.service === 'git-receive-pack';
    const project = await loadProjectFor(ctx, projectId, requiredCapability(exchange.service), pushing ? 'push to this repository' : 'read this repository');
    if (project.repo_url !== null) {
      throw new AppError(
        'NOT_FOUND',
        `Project ${project.slug} is a mirror of ${project.repo_url}; svc does not host its repository. Clone and push ${project.repo_url} instead.`,
      );
    }
    const repository = await openProjectRepository(services, project);

    // From here on git writes the answer straight to the socket.
    reply.hijack();
    try {
      await serveSmartHttp(repository.path, request.raw, reply.raw, {
        subPath,
        serviceParameter: request.query.service ?? null,
        receive: { rules: { defaultBranch: project.default_branch, onlyRef: ctx.actor.pushRef }, maxPushBytes: services.config.maxPushBytes },
      });
      // A push may create the default branch of an empty repository: its manifest is read again.
      if (pushing) services.events.emit('project.branch-moved', { projectId: project.id });
    } catch (error) {
      if (!reply.raw.headersSent) {
        request.log.error({ err: error }, 'git smart-HTTP request failed');
        reply.raw.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', ...NO_CACHE_HEADERS });
        reply.raw.end('svc could not run git for this request; the server log has the details.\n');
      } else {
        // Part of git's answer went out already; cutting the connection makes the client report a failure
        // instead of mistaking a truncated pack for a complete one. A client that left is not an error.
        if (!reply.raw.destroyed) request.log.warn({ err: error }, 'git smart-HTTP transfer ended early');
        reply.raw.destroy();
      }
    }
  }

  const hidden = { schema: { hide: true } };
  app.get<{ Params: RepositoryParams; Querystring: InfoRefsQuery }>('/git/:repository/info/refs', hidden, (request, reply) =>
    serve(request, reply, '/info/refs'),
  );
  app.post<{ Params: RepositoryParams; Querystring: InfoRefsQuery }>('/git/:repository/git-upload-pack', hidden, (request, reply) =>
    serve(request, reply, '/git-upload-pack'),
  );
  app.post<{ Params: RepositoryParams; Querystring: InfoRefsQuery }>('/git/:repository/git-receive-pack', hidden, (request, reply) =>
    serve(request, reply, '/git-receive-pack'),
  );
}
