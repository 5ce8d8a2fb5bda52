import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../context.js';
import { checkAccessFirst, rawParams } from '../server/access-check.js';
import { authenticate } from '../server/authenticate.js';
import { errorResponses } from '../server/http-schemas.js';
import { patternMeaning } from '../server/schema-errors.js';
import { createSession } from './create-session.js';
import { deleteSession } from './delete-session.js';
import { listSessions } from './list-sessions.js';
import { presentSession } from './presenter.js';
import { resumeSession } from './resume-session.js';
import { issueCloneCredential, reportRuntimeSession, updateLease } from './sandbox-identity.js';
import { CloneCredential, ConversationEnvelope, CreateSessionBody, LeaseBody, ListSessionsQuery, MessageBody, ProjectParams, RuntimeSessionBody, SESSION_ID_PREFIX_PATTERN, Session, SessionEnvelope, SessionParams, SessionsPage } from './schemas.js';
import { sendMessage } from './send-message.js';
import { loadProjectForSessions, loadSession } from './session-access.js';
import { sessionConversation } from './session-conversation.js';
import { stopSession } from './stop-session.js';

// schemas.ts stays free of the server's kit (the CLI reads its types), so the words for this pattern are given here.
patternMeaning(SESSION_ID_PREFIX_PATTERN, 'the beginning of a session id: 1 to 36 hex digits and dashes');

const tags = ['sessions'];
const PREFIX = '/v1/projects/:id/sessions';
/** The sandbox-identity routes take the sandbox's own token and no other (contract §6). */
const SANDBOX_ONLY = { tokenKinds: ['sandbox'] as const };

export function sessionRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const mayWrite = checkAccessFirst(services, (ctx, request) => loadProjectForSessions(ctx, rawParams(request).id ?? '', 'write'));

  api.post(
    PREFIX,
    {
      schema: {
        tags,
        summary: 'Start a session: answered provisioning at once, its sandbox starts in the background',
        params: ProjectParams,
        body: Type.Optional(CreateSessionBody),
        response: { 201: SessionEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429, 502) },
      },
      preParsing: mayWrite,
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const body = request.body ?? {};
      const session = await createSession(ctx, { projectId: request.params.id, agent: body.agent, model: body.model, prompt: body.prompt, base_ref: body.base_ref });
      return reply.code(201).send({ session: presentSession(session) });
    },
  );

  api.get(
    PREFIX,
    {
      schema: { tags, summary: 'List sessions, newest first', params: ProjectParams, querystring: ListSessionsQuery, response: { 200: SessionsPage, ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const { query } = request;
      const page = await listSessions(ctx, { projectId: request.params.id, statuses: query.status ? [query.status] : undefined, trigger: query.trigger, idPrefix: query.id_prefix, limit: query.limit, before: query.before });
      return { sessions: page.sessions.map(presentSession), next_before: page.nextBefore };
    },
  );

  api.get(`${PREFIX}/:sid`, { schema: { tags, summary: 'Read a session', params: SessionParams, response: { 200: SessionEnvelope, ...errorResponses(400, 401, 403, 404) } } }, async (request) => {
    const ctx = await authenticate(services, request);
    const { session } = await loadSession(ctx, request.params.id, request.params.sid, 'read');
    return { session: presentSession(session) };
  });

  api.get(
    `${PREFIX}/:sid/conversation`,
    {
      schema: {
        tags,
        summary: 'The agent’s conversation: from the sandbox while it runs, else svc’s copy taken when it stopped',
        params: SessionParams,
        response: { 200: ConversationEnvelope, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const { session } = await loadSession(ctx, request.params.id, request.params.sid, 'read');
      return sessionConversation(ctx, session, ctx.actor.userId);
    },
  );

  api.post(
    `${PREFIX}/:sid/stop`,
    { schema: { tags, summary: 'Hibernate a session: processes and memory go, files and identity stay', params: SessionParams, response: { 200: SessionEnvelope, ...errorResponses(400, 401, 403, 404, 409) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { session: presentSession(await stopSession(ctx, request.params.id, request.params.sid)) };
    },
  );

  api.post(
    `${PREFIX}/:sid/resume`,
    { schema: { tags, summary: 'Resume a stopped or failed session (a running one is left as it is)', params: SessionParams, response: { 200: SessionEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { session: presentSession(await resumeSession(ctx, request.params.id, request.params.sid)) };
    },
  );

  api.post(
    `${PREFIX}/:sid/messages`,
    {
      schema: {
        tags,
        summary: 'Send the agent a message (a new user turn), waking a stopped session first; queued in order, never lost',
        params: SessionParams,
        body: MessageBody,
        response: { 202: SessionEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      preParsing: mayWrite,
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const session = await sendMessage(ctx, request.params.id, request.params.sid, request.body.text);
      return reply.code(202).send({ session: presentSession(session) });
    },
  );

  api.delete(
    `${PREFIX}/:sid`,
    { schema: { tags, summary: 'Delete a session: its sandbox and files go (state archived); its branch stays', params: SessionParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await deleteSession(ctx, request.params.id, request.params.sid);
      return reply.code(204).send(null);
    },
  );

  api.get(
    '/v1/projects/:id/git/clone-credential',
    {
      config: SANDBOX_ONLY,
      schema: { tags, summary: 'A git credential for the sandbox (sandbox token): fetch the project, push only the session branch; valid 1 h', params: ProjectParams, response: { 200: CloneCredential, ...errorResponses(401, 403) } },
    },
    async (request) => issueCloneCredential(await authenticate(services, request), request.params.id),
  );

  api.post(
    '/v1/sandbox/lease',
    {
      config: SANDBOX_ONLY,
      schema: { tags, summary: 'Renew (busy: true, 60 s) or release (false) the execution lease (sandbox token)', body: LeaseBody, response: { 200: Type.Object({ lease_expires_at: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(400, 401) } },
    },
    async (request) => updateLease(await authenticate(services, request), request.body.busy),
  );

  api.put(
    '/v1/sandbox/runtime-session',
    {
      config: SANDBOX_ONLY,
      schema: { tags, summary: 'Report the agent runtime’s root session after a cold boot (sandbox token)', body: RuntimeSessionBody, response: { 204: Type.Null(), ...errorResponses(400, 401) } },
    },
    async (request, reply) => {
      await reportRuntimeSession(await authenticate(services, request), request.body.runtime_session_id);
      return reply.code(204).send(null);
    },
  );
}
