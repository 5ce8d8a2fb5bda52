import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../context.js';
import { loadProjectFor } from '../accounts/access.js';
import { checkAccessFirst, rawParams } from '../server/access-check.js';
import { authenticate } from '../server/authenticate.js';
import { errorResponses } from '../server/http-schemas.js';
import { fireTrigger } from './fire-trigger.js';
import { listFires, listTriggers } from './list-triggers.js';
import { presentFire, presentFireAnswer, presentTrigger, presentTriggerError } from './presenters.js';
import { FireAnswer, FireBody, FiresPage, FiresQuery, ProjectParams, TriggerListing, TriggerParams } from './schemas.js';

const tags = ['triggers'];
const PREFIX = '/v1/projects/:id/triggers';

/** Starts the session of a fire once the answer is out (a slow sandbox never holds the caller). */
export function startAfterAnswer(services: Services, raw: { once(event: 'close', listener: () => void): unknown }, fireId: string, status: string): void {
  if (status === 'fired') raw.once('close', () => services.events.emit('triggers.fired', { fireIds: [fireId] }));
}

export function triggerRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const mayFire = checkAccessFirst(services, (ctx, request) => loadProjectFor(ctx, rawParams(request).id ?? '', 'triggers.fire', 'fire triggers'));

  api.get(
    PREFIX,
    { schema: { tags, summary: "The project's triggers from the manifest on its default branch, with their next and last fires, and the entries that could not be read", params: ProjectParams, response: { 200: TriggerListing, ...errorResponses(400, 401, 403, 404, 502) } } },
    async (request) => {
      const listing = await listTriggers(await authenticate(services, request), request.params.id);
      return { triggers: listing.triggers.map(presentTrigger), errors: listing.errors.map(presentTriggerError), manifest: listing.manifest };
    },
  );

  api.get(
    `${PREFIX}/:slug/fires`,
    { schema: { tags, summary: 'Fires of a trigger, newest first (kept 30 days), a page at a time', params: TriggerParams, querystring: FiresQuery, response: { 200: FiresPage, ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const page = await listFires(await authenticate(services, request), request.params.id, request.params.slug, request.query);
      return { fires: page.fires.map(presentFire), next_before: page.nextBefore };
    },
  );

  api.post(
    `${PREFIX}/:slug/fire`,
    {
      schema: { tags, summary: 'Fire a trigger now (needs triggers.fire); answered like the webhook receiver', params: TriggerParams, body: Type.Optional(FireBody), response: { 202: FireAnswer, ...errorResponses(400, 401, 403, 404, 409) } },
      preParsing: mayFire,
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const fire = await fireTrigger(ctx, { projectId: request.params.id, slug: request.params.slug, message: request.body?.message });
      startAfterAnswer(services, reply.raw, fire.id, fire.status);
      return reply.code(202).send(presentFireAnswer(fire));
    },
  );
}
