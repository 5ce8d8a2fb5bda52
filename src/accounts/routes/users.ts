import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../context.js';
import { checkAccessFirst, rawParams } from '../../server/access-check.js';
import { authenticate } from '../../server/authenticate.js';
import { errorResponses } from '../../server/http-schemas.js';
import {
  createUser,
  disableUser,
  enableUser,
  endUserSignIns,
  listProjectMembers,
  listUsers,
  namesOfPeople,
  putProjectMember,
  removeProjectMember,
  requireModelAccessManager,
  requireUserCreator,
  setModelAccess,
} from '../users.js';
import { loadProjectFor } from '../access.js';

const tags = ['users'];
/** Routes that act for a person: user tokens only (a project token is refused before anything else). */
const PEOPLE_ONLY = { tokenKinds: ['user'] as const };
const User = Type.Object({ id: Type.String(), name: Type.String(), admin: Type.Boolean(), disabled: Type.Boolean(), model_access: Type.Boolean(), created_at: Type.String() });
const Member = Type.Object({ user_id: Type.String(), name: Type.String(), role: Type.Union([Type.Literal('member'), Type.Literal('admin')]), created_at: Type.String() });
const UserParams = Type.Object({ user: Type.String({ description: 'User id, user name, or "me"' }) });
const MemberParams = Type.Object({ id: Type.String(), userId: Type.String({ description: 'User id or user name' }) });

export function userRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/v1/users',
    {
      config: PEOPLE_ONLY,
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

  api.get(
    '/v1/users',
    { config: PEOPLE_ONLY, schema: { tags, summary: 'List users (administrators)', response: { 200: Type.Object({ users: Type.Array(User) }), ...errorResponses(401, 403) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { users: await listUsers(ctx) };
    },
  );

  api.post(
    '/v1/users/:user/disable',
    {
      config: PEOPLE_ONLY,
      schema: {
        tags,
        summary: 'Disable a user (administrators): every token and browser sign-in of theirs stops working at once',
        params: UserParams,
        response: { 200: Type.Object({ user: User }), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { user: await disableUser(ctx, request.params.user) };
    },
  );

  api.post(
    '/v1/users/:user/enable',
    {
      config: PEOPLE_ONLY,
      schema: { tags, summary: 'Enable a disabled user (administrators): their tokens work again', params: UserParams, response: { 200: Type.Object({ user: User }), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { user: await enableUser(ctx, request.params.user) };
    },
  );

  api.patch(
    '/v1/users/:user',
    {
      config: PEOPLE_ONLY,
      schema: {
        tags,
        summary: "Entitle a user to bundled model access or take it back (administrators): their sessions in opted-in projects get the operator's model gateway",
        params: UserParams,
        body: Type.Object({ model_access: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Type.Object({ user: User }), ...errorResponses(400, 401, 403, 404) },
      },
      preParsing: checkAccessFirst(services, requireModelAccessManager),
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { user: await setModelAccess(ctx, request.params.user, request.body.model_access) };
    },
  );

  api.delete(
    '/v1/users/:user/web-sessions',
    {
      config: PEOPLE_ONLY,
      schema: {
        tags,
        summary: 'Sign a user out of every browser (yourself as "me", anyone for administrators)',
        params: UserParams,
        response: { 200: Type.Object({ ended: Type.Integer() }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { ended: await endUserSignIns(ctx, request.params.user) };
    },
  );

  api.get(
    '/v1/projects/:id/members',
    { schema: { tags, summary: 'List a project’s members and their roles', params: Type.Object({ id: Type.String() }), response: { 200: Type.Object({ members: Type.Array(Member) }), ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { members: await listProjectMembers(ctx, request.params.id) };
    },
  );

  api.get(
    '/v1/projects/:id/people',
    {
      schema: {
        tags,
        summary: 'The names of users by id, for the ids a project’s change requests and sessions carry (needs project.read)',
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({ ids: Type.String({ maxLength: 3700, description: 'Comma-separated user ids, at most 100' }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ people: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const ids = request.query.ids.split(',').map((id) => id.trim()).filter((id) => id !== '').slice(0, 100);
      return { people: await namesOfPeople(ctx, request.params.id, ids) };
    },
  );

  api.put(
    '/v1/projects/:id/members/:userId',
    {
      config: PEOPLE_ONLY,
      schema: {
        tags,
        summary: 'Add a member to a project, or change their role (needs project.admin)',
        params: MemberParams,
        body: Type.Optional(Type.Object({ role: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('admin')])) }, { additionalProperties: false })),
        response: { 200: Type.Object({ member: Member, created: Type.Boolean() }), 201: Type.Object({ member: Member, created: Type.Boolean() }), ...errorResponses(400, 401, 403, 404) },
      },
      preParsing: checkAccessFirst(services, (ctx, request) => loadProjectFor(ctx, rawParams(request).id ?? '', 'project.admin', 'add project members')),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const { member, created } = await putProjectMember(ctx, request.params.id, request.params.userId, request.body?.role ?? 'member');
      return reply.code(created ? 201 : 200).send({ member, created });
    },
  );

  api.delete(
    '/v1/projects/:id/members/:userId',
    {
      config: PEOPLE_ONLY,
      schema: { tags, summary: 'Remove a project member (needs project.admin); the tokens they made for it stop working', params: MemberParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await removeProjectMember(ctx, request.params.id, request.params.userId);
      return reply.code(204).send(null);
    },
  );
}
