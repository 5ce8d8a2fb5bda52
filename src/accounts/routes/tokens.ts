import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CAPABILITIES } from '../capabilities.js';
import type { Services } from '../../context.js';
import { checkAccessFirst, rawParams } from '../../server/access-check.js';
import { authenticate } from '../../server/authenticate.js';
import { errorResponses } from '../../server/http-schemas.js';
import {
  createProjectToken,
  createUserToken,
  listProjectTokens,
  listUserTokens,
  loadProjectForTokens,
  revokeProjectToken,
  revokeUserToken,
} from '../tokens.js';
import { CapabilityName, ProjectParams } from './schemas.js';

const tags = ['tokens'];
/** Tokens are minted, listed and revoked by people: user tokens only. */
const PEOPLE_ONLY = { tokenKinds: ['user'] as const };
const TokenSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  project_id: Type.Union([Type.String(), Type.Null()]),
  capabilities: Type.Array(Type.String()),
  created_by: Type.String({ description: 'The user the token acts for, or who created it; it works only while they have access' }),
  created_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
});
const TokenName = Type.String({ minLength: 1, maxLength: 120 });
const ExpiresInDays = Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 }));
const UserParams = Type.Object({ user: Type.String({ description: 'User id, user name, or "me"' }) });

export function tokenRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/v1/projects/:id/tokens',
    {
      config: PEOPLE_ONLY,
      schema: {
        tags,
        summary: 'Mint a project token with capabilities (the token is shown once; needs project.admin)',
        params: ProjectParams,
        body: Type.Object(
          { name: TokenName, capabilities: Type.Array(CapabilityName, { minItems: 1, maxItems: CAPABILITIES.length }), expires_in_days: ExpiresInDays },
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
    {
      config: PEOPLE_ONLY,
      schema: { tags, summary: 'List project tokens (never their secrets)', params: ProjectParams, response: { 200: Type.Object({ tokens: Type.Array(TokenSummary) }), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { tokens: await listProjectTokens(ctx, request.params.id) };
    },
  );

  api.delete(
    '/v1/projects/:id/tokens/:tokenId',
    {
      config: PEOPLE_ONLY,
      schema: { tags, summary: 'Revoke a project token', params: Type.Object({ id: Type.String(), tokenId: Type.String() }), response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await revokeProjectToken(ctx, request.params.id, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );

  api.get(
    '/v1/users/:user/tokens',
    {
      config: PEOPLE_ONLY,
      schema: { tags, summary: 'List a user’s user tokens ("me" for your own; administrators for anyone)', params: UserParams, response: { 200: Type.Object({ tokens: Type.Array(TokenSummary) }), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { tokens: await listUserTokens(ctx, request.params.user) };
    },
  );

  api.post(
    '/v1/users/:user/tokens',
    {
      config: PEOPLE_ONLY,
      schema: {
        tags,
        summary: 'Mint a user token ("me" for your own; administrators for anyone); shown once',
        params: UserParams,
        body: Type.Object({ name: TokenName, expires_in_days: ExpiresInDays }, { additionalProperties: false }),
        response: { 201: Type.Intersect([Type.Object({ token: Type.String() }), TokenSummary]), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const { token, summary } = await createUserToken(ctx, request.params.user, request.body);
      return reply.code(201).send({ token, ...summary });
    },
  );

  api.delete(
    '/v1/users/:user/tokens/:tokenId',
    {
      config: PEOPLE_ONLY,
      schema: { tags, summary: 'Revoke a user token', params: Type.Object({ user: Type.String(), tokenId: Type.String() }), response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await revokeUserToken(ctx, request.params.user, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );
}
