import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../context.js';
import { checkAccessFirst } from '../../server/access-check.js';
import { authenticate } from '../../server/authenticate.js';
import { errorResponses } from '../../server/http-schemas.js';
import { addProjectMember, createUser, listUsers, removeProjectMember, requireUserCreator } from '../users.js';

const tags = ['users'];
const User = Type.Object({ id: Type.String(), name: Type.String(), admin: Type.Boolean(), created_at: Type.String() });
const MemberParams = Type.Object({ id: Type.String(), userId: Type.String() });

export function userRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/v1/users',
    {
      schema: {
        tags,
        summary: 'Add a user to the account (administrators); returns the first user token once',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 80, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
            password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
            admin: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ user: User, token: Type.String() }), ...errorResponses(400, 401, 403, 409) },
      },
      preParsing: checkAccessFirst(services, requireUserCreator),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      return reply.code(201).send(await createUser(ctx, request.body));
    },
  );

  api.get('/v1/users', { schema: { tags, summary: 'List users (administrators)', response: { 200: Type.Object({ users: Type.Array(User) }), ...errorResponses(401, 403) } } }, async (request) => {
    const ctx = await authenticate(services, request);
    return { users: await listUsers(ctx) };
  });

  api.put(
    '/v1/projects/:id/members/:userId',
    { schema: { tags, summary: 'Make a user a member of a project (administrators)', params: MemberParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await addProjectMember(ctx, request.params.id, request.params.userId);
      return reply.code(204).send(null);
    },
  );

  api.delete(
    '/v1/projects/:id/members/:userId',
    { schema: { tags, summary: 'Remove a project member (administrators)', params: MemberParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await removeProjectMember(ctx, request.params.id, request.params.userId);
      return reply.code(204).send(null);
    },
  );
}
