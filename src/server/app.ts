import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import { projectRoutes } from '../projects/routes/projects.js';
import { secretRoutes } from '../accounts/routes/secrets.js';
import { tokenRoutes } from '../accounts/routes/tokens.js';
import { userRoutes } from '../accounts/routes/users.js';
import { fastifyTrustProxy } from '../config.js';
import type { Services } from '../context.js';
import { changeRequestRoutes } from '../changes/routes.js';
import { sessionProxyRoutes } from '../sessions/proxy-routes.js';
import { sessionRoutes } from '../sessions/routes.js';
import { triggerRoutes } from '../triggers/routes.js';
import { webhookRoutes } from '../triggers/webhook-routes.js';
import { dashboardRoutes } from '../dashboards/routes.js';
import { PageRenderer } from '../web/page-renderer.js';
import type { LoginThrottle } from '../accounts/login-throttle.js';
import type { Prerenderer } from '../web/prerender.js';
import { isWebPagePath, sendErrorPage, webRoutes } from '../web/routes.js';
import { gitHttpRoutes } from '../git-host/http-routes.js';
import { authenticateRequests } from './authenticate.js';
import { answerClientError } from './client-error.js';
import { MAX_PATH_PARAMETER_LENGTH, registerErrorHandling, toAppError } from './error-handler.js';
import { markOptionalBodies } from './http-schemas.js';
import { registerJsonBodyParser } from './json-body.js';
import { refuseNulInUrl } from './nul-in-url.js';
import { routeSchemaCompilers } from './route-schema-compilers.js';

/** Bodies of ordinary JSON routes; routes that take documents (dashboards) raise their own limit. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    /** The dashboard page renderer, shared by the pages and the check (tests read its activity). */
    pageRenderer: PageRenderer;
    /** What the web pages run in the background, set by their routes: the pre-renderer, none without render threads. */
    webPages: { prerenderer: Prerenderer | null };
    /** Compiles the route schemas no request has compiled yet (route-schema-compilers.ts). */
    compileRouteSchemas(): void;
  }
}

export interface AppOptions {
  logLevel: string;
  loginThrottle: LoginThrottle;
}

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const schemaCompilers = routeSchemaCompilers();
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: schemaCompilers.buildSerializer } },
    logger: { level: options.logLevel },
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Which proxies may name the client in X-Forwarded-For (request.ip, which sign-in throttling counts by).
    trustProxy: fastifyTrustProxy(services.config.trustProxy),
    // Per-request lines only when debugging: at thousands of publishes a second they would dominate the log.
    logController: new LogController({ disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace' }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    return503OnClosing: true,
    // Requests the HTTP parser refuses (a Content-Length that is not a number, …) get the same JSON body.
    clientErrorHandler: answerClientError,
    // Errors raised before routing (a URL that is not valid percent-encoding, a path segment over the
    // limit) get the same JSON body, or an HTML page under the web UI's addresses.
    frameworkErrors: (error, request, frameworkReply) => {
      const appError = toAppError(error);
      const reply = frameworkReply as FastifyReply;
      if (isWebPagePath(request.url)) void sendErrorPage(reply, appError, request.url);
      else void reply.code(appError.status).type('application/json; charset=utf-8').send(appError.toBody());
    },
  });
  // Every answer belongs to whoever asked: no shared cache may keep one unless its route says so, and
  // no browser may read JSON that echoes a path (a 404 naming the slug) as a page.
  // A callback, not an async function: it runs on every answer, and an async hook costs each one a promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
  app.setValidatorCompiler(schemaCompilers.validatorCompiler);
  app.decorate('compileRouteSchemas', () => schemaCompilers.compileAll());
  registerErrorHandling(app);
  refuseNulInUrl(app);
  registerJsonBodyParser(app);

  // Shared by the dashboard pages and the dashboard check (which draws a spec's charts before publishing).
  const renderer = new PageRenderer({
    threads: services.config.renderThreads,
    timeoutMs: services.config.renderTimeoutMs,
    chartTimeoutMs: services.config.renderChartTimeoutMs,
    warmupRounds: services.config.renderWarmupRounds,
    onThreadError: (error) => app.log.error({ err: error }, 'a render thread failed'),
  });
  app.addHook('onClose', async () => renderer.close());
  app.decorate('pageRenderer', renderer);
  app.decorate('webPages', { prerenderer: null });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: '1',
        description: 'Control plane for coding agents: projects, change requests, sessions, triggers and dashboards.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A user, project or sandbox token (svc_u_…, svc_p_…, svc_s_…)' } },
      },
      security: [{ bearer: [] }],
    },
    transformObject: (documents) => markOptionalBodies('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject),
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // The JSON API: every route takes a bearer token, checked before the body is read.
  app.register(async (scope) => {
    authenticateRequests(scope, services);
    projectRoutes(scope, services);
    secretRoutes(scope, services);
    tokenRoutes(scope, services);
    userRoutes(scope, services);
    dashboardRoutes(scope, services, renderer);
    changeRequestRoutes(scope, services);
    sessionRoutes(scope, services);
    triggerRoutes(scope, services);
  });
  // Its own scope: the webhook receiver authenticates with the trigger's secret and reads any body as bytes.
  app.register(async (scope) => webhookRoutes(scope, services));
  // Its own scope: a session's sandbox is reached with the caller's token, bodies streamed through unread.
  app.register(async (scope) => {
    authenticateRequests(scope, services);
    sessionProxyRoutes(scope, services);
  });
  // Its own scope: the git host streams bodies through its own parsers and answers git clients in text.
  app.register(async (scope) => {
    gitHttpRoutes(scope, services);
  });
  // Its own scope: the web UI parses forms and cookies and answers with HTML pages, errors included.
  app.register(async (scope) => webRoutes(scope, services, renderer, options.loginThrottle));

  return app;
}
