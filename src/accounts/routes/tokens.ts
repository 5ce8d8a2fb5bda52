import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../context.js';
import { checkAccessFirst, rawParams } from '../../server/access-check.js';
import { authenticate } from '../../server/authenticate.js';
import { errorResponses } from '../../server/http-schemas.js';
import { createProjectToken, listProjectTokens, loadProjectForTokens, revokeProjectToken } from '../tokens.js';
import { CapabilityName, ProjectParams } from './schemas.js';

const tags = ['tokens'];
const TokenSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  project_id: Type.Union([Type.String(), Type.Null()]),
  capabilities: Type.Array(Type.String()),
  created_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
});

export function tokenRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/v1/projects/:id/tokens',
    {
      schema: {
        tags,
        summary: 'Mint a project token with capabilities (the token is shown once)',
        params: ProjectParams,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 120 }),
            capabilities: Type.Array(CapabilityName, { minItems: 1, maxItems: 7 }),
            expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Intersect([Type.Object({ token: Type.String() }), TokenSummary]), ...errorResponses(400, 401, 403, 404) },
      },
      preParsing: checkAccessFirst(services, (ctx, request) => loadProjectForTokens(ctx, rawParams(request).id ?? '', 'mint project tokens')),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const { token, summary } = await createProjectToken(ctx, request.params.id, request.body);
      return reply.code(201).send({ token, ...summary });
    },
  );

  api.get(
    '/v1/projects/:id/tokens',
    { schema: { tags, summary: 'List project tokens (never their secrets)', params: ProjectParams, response: { 200: Type.Object({ tokens: Type.Array(TokenSummary) }), ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { tokens: await listProjectTokens(ctx, request.params.id) };
    },
  );

  api.delete(
    '/v1/projects/:id/tokens/:tokenId',
    {
      schema: { tags, summary: 'Revoke a project token', params: Type.Object({ id: Type.String(), tokenId: Type.String() }), response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await revokeProjectToken(ctx, request.params.id, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );
}
