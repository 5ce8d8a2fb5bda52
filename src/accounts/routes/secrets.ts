import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../context.js';
import { checkAccessFirst, rawParams } from '../../server/access-check.js';
import { authenticate } from '../../server/authenticate.js';
import { errorResponses } from '../../server/http-schemas.js';
import { deleteSecret, listSecrets, loadProjectToSetSecrets, putSecret } from '../secrets.js';
import { ProjectParams } from './schemas.js';

const tags = ['secrets'];
const SecretParams = Type.Object({ id: Type.String(), name: Type.String() });
const SecretSummary = Type.Object({ name: Type.String(), created_at: Type.String(), updated_at: Type.String() });

export function secretRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.put(
    '/v1/projects/:id/secrets/:name',
    {
      schema: {
        tags,
        summary: 'Create or replace a project secret (its value is never read back; needs project.admin)',
        params: SecretParams,
        body: Type.Object({ value: Type.String({ maxLength: 65536 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ secret: SecretSummary, created: Type.Boolean() }), 201: Type.Object({ secret: SecretSummary, created: Type.Boolean() }), ...errorResponses(400, 401, 403, 404) },
      },
      preParsing: checkAccessFirst(services, (ctx, request) => loadProjectToSetSecrets(ctx, rawParams(request).id ?? '')),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const created = await putSecret(ctx, request.params.id, request.params.name, request.body.value);
      const secret = (await listSecrets(ctx, request.params.id)).find((s) => s.name === request.params.name);
      return reply.code(created ? 201 : 200).send({ secret: secret ?? { name: request.params.name, created_at: '', updated_at: '' }, created });
    },
  );

  api.get(
    '/v1/projects/:id/secrets',
    { schema: { tags, summary: 'List secret names', params: ProjectParams, response: { 200: Type.Object({ secrets: Type.Array(SecretSummary) }), ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { secrets: await listSecrets(ctx, request.params.id) };
    },
  );

  api.delete(
    '/v1/projects/:id/secrets/:name',
    { schema: { tags, summary: 'Delete a secret (needs project.admin)', params: SecretParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await deleteSecret(ctx, request.params.id, request.params.name);
      return reply.code(204).send(null);
    },
  );
}
