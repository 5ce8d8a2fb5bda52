import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import { errorResponses } from '../server/http-schemas.js';
import { presentFireAnswer } from './presenters.js';
import { FireBatch } from './fire-batch.js';
import { receiveWebhook, type WebhookReceiver } from './receive-webhook.js';
import { startAfterAnswer } from './routes.js';
import { FireAnswer } from './schemas.js';
import { WebhookTargets } from './webhook-targets.js';

/** Where a webhook trigger's sender delivers (relative to svc's address). */
export function webhookPath(projectId: string, slug: string): string {
  return `/v1/webhooks/projects/${projectId}/${slug}`;
}

/** Contract §7: webhook bodies up to 1 MiB. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * The receiver takes no svc token: it authenticates with the trigger's secret (spec 3). Its body is read
 * as bytes of any content type, because the signature is over the exact bytes sent.
 */
export function webhookRoutes(app: FastifyInstance, services: Services): void {
  const targets = new WebhookTargets(services.db, services.dialect);
  const receiver: WebhookReceiver = { targets, fires: new FireBatch(services, targets) };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  // Someone checking a webhook URL in a browser or with curl learns what the sender does instead of "No route".
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: webhookPath(':projectId', ':slug'),
    schema: { hide: true },
    handler: async (request) => {
      throw new AppError('NOT_FOUND', `A webhook URL takes POST only: the sender posts its body there, signed with the trigger's secret (X-Hub-Signature-256 or X-Svc-Signature); got ${request.method}.`);
    },
  });

  app.post<{ Params: { projectId: string; slug: string } }>(
    webhookPath(':projectId', ':slug'),
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        tags: ['triggers'],
        summary: "Fire a webhook trigger: signed with X-Hub-Signature-256 or X-Svc-Signature (HMAC-SHA256 of the body, keyed with the trigger's secret_env), or the secret as a token",
        security: [],
        params: Type.Object({ projectId: Type.String(), slug: Type.String() }),
        response: { 202: FireAnswer, ...errorResponses(400, 401, 404, 409, 413, 500) },
      },
    },
    async (request, reply) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let fire;
      try {
        fire = await receiveWebhook(services, receiver, { projectId: request.params.projectId, slug: request.params.slug, rawBody, headers: request.headers });
      } catch (error) {
        if (error instanceof AppError) throw error;
        // Authenticated (or not yet known), but the fire could not be recorded: spec 3's 500.
        request.log.error({ err: error }, 'a webhook fire could not be recorded');
        throw new AppError('INTERNAL', 'The webhook was authenticated but its fire could not be recorded; the sender may deliver it again.');
      }
      startAfterAnswer(services, reply.raw, fire.id, fire.status);
      return reply.code(202).send(presentFireAnswer(fire));
    },
  );
}
