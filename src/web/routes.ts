/**
 * The web UI: sign-in, the app for people (projects, change requests, sessions, settings), the
 * dashboards pages and their assets. Registered in its own scope, so the form
 * body parser, the cookie parser and the HTML error pages apply to these routes only; the JSON API
 * keeps its JSON errors and refuses form bodies.
 */
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LoginThrottle } from '../accounts/login-throttle.js';
import type { Services } from '../context.js';
import type { AppError } from '../errors.js';
import { toAppError } from '../server/error-handler.js';
import { changeRequestPageRoutes } from './app/change-request-pages.js';
import { projectsPageRoutes } from './app/projects-pages.js';
import { sessionPageRoutes } from './app/session-pages.js';
import { settingsPageRoutes } from './app/settings-pages.js';
import { triggerPageRoutes } from './app/trigger-pages.js';
import { assetRoutes } from './assets.js';
import { dashboardPageRoutes } from './dashboards-pages.js';
import { registerFormBodies } from './form-body.js';
import type { PageRenderer } from './page-renderer.js';
import { renderErrorPage } from './error-page.js';
import { loginRoutes } from './login.js';
import { sendPage } from './send-page.js';

/** Addresses of the web UI: their errors are pages, also those raised before routing (a bad URL). */
export function isWebPagePath(url: string): boolean {
  return /^\/(?:d|login|logout|projects)?(?:[/?#]|$)/.test(url);
}

export function sendErrorPage(reply: FastifyReply, error: AppError, url: string): FastifyReply {
  return sendPage(reply, error.status, renderErrorPage(error, url.split('#')[0] ?? '/'));
}

export async function webRoutes(scope: FastifyInstance, services: Services, renderer: PageRenderer, loginThrottle: LoginThrottle): Promise<void> {
  await scope.register(cookie);
  await registerFormBodies(scope);

  scope.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, { bodyLimit: request.routeOptions.bodyLimit });
    if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error on a web page');
    return sendErrorPage(reply, appError, request.url);
  });

  assetRoutes(scope);
  loginRoutes(scope, services, loginThrottle);
  dashboardPageRoutes(scope, services, renderer);
  projectsPageRoutes(scope, services);
  changeRequestPageRoutes(scope, services);
  sessionPageRoutes(scope, services);
  triggerPageRoutes(scope, services);
  settingsPageRoutes(scope, services);
}
