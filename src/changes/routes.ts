import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Negotiator from 'negotiator';
import { Type } from 'typebox';
import type { Services } from '../context.js';
import { checkAccessFirst, rawParams } from '../server/access-check.js';
import { authenticate } from '../server/authenticate.js';
import { errorResponses } from '../server/http-schemas.js';
import { loadProjectForChangeRequests, type ChangeRequestAction } from './change-request-access.js';
import { closeChangeRequest } from './close-change-request.js';
import { createChangeRequest } from './create-change-request.js';
import { diffChangeRequest, patchText } from './diff-change-request.js';
import { getChangeRequest } from './get-change-request.js';
import { listChangeRequests } from './list-change-requests.js';
import { mergeChangeRequest } from './merge-change-request.js';
import { presentChangeRequest, presentMergePreview } from './presenters.js';
import { previewChangeRequestMerge } from './preview-merge.js';
import { reopenChangeRequest } from './reopen-change-request.js';
import { requestChanges } from './request-changes.js';
import { updateChangeRequest } from './update-change-request.js';
import {
  ChangeRequest,
  ChangeRequestEnvelope,
  ChangeRequestParams,
  CreateBody,
  Diff,
  ListQuery,
  MergeBody,
  MergePreview,
  MergeResult,
  ProjectParams,
  RequestChangesBody,
  UpdateBody,
} from './schemas.js';

const tags = ['change requests'];
const PREFIX = '/v1/projects/:id/change-requests';

/**
 * `Accept: text/x-diff` asks for the bare patch (contract §5); the JSON document is the default, and wins
 * when the header prefers it (q-values, then the order given).
 */
function wantsPatchText(request: FastifyRequest): boolean {
  return new Negotiator({ headers: request.headers }).mediaType(['application/json', 'text/x-diff']) === 'text/x-diff';
}

export function changeRequestRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  /** For routes with a body or a query string: 403 or 404 before either is looked at. */
  const mayDo = (action: ChangeRequestAction) =>
    checkAccessFirst(services, (ctx, request) => loadProjectForChangeRequests(ctx, rawParams(request).id ?? '', action));

  api.get(
    PREFIX,
    {
      schema: {
        tags,
        summary: 'List change requests, newest first; open ones are refreshed against the live branches',
        params: ProjectParams,
        querystring: ListQuery,
        response: { 200: Type.Object({ change_requests: Type.Array(ChangeRequest) }), ...errorResponses(400, 401, 403, 404) },
      },
      preParsing: mayDo('read'),
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const rows = await listChangeRequests(ctx, { projectId: request.params.id, status: request.query.status });
      return { change_requests: rows.map(presentChangeRequest) };
    },
  );

  api.post(
    PREFIX,
    {
      schema: {
        tags,
        summary: 'Open a change request to merge head_ref into base_ref (default: the project default branch)',
        params: ProjectParams,
        body: CreateBody,
        response: { 201: ChangeRequestEnvelope, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 502) },
      },
      preParsing: mayDo('open'),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const row = await createChangeRequest(ctx, { projectId: request.params.id, ...request.body });
      return reply.code(201).send({ change_request: presentChangeRequest(row) });
    },
  );

  api.get(
    `${PREFIX}/:crId`,
    {
      schema: { tags, summary: 'Read a change request (refreshes the SHAs of an open one)', params: ChangeRequestParams, response: { 200: ChangeRequestEnvelope, ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { change_request: presentChangeRequest(await getChangeRequest(ctx, { projectId: request.params.id, crRef: request.params.crId })) };
    },
  );

  api.patch(
    `${PREFIX}/:crId`,
    {
      schema: { tags, summary: 'Edit the title and/or description', params: ChangeRequestParams, body: UpdateBody, response: { 200: ChangeRequestEnvelope, ...errorResponses(400, 401, 403, 404, 413) } },
      preParsing: mayDo('edit'),
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const row = await updateChangeRequest(ctx, { projectId: request.params.id, crRef: request.params.crId, ...request.body });
      return { change_request: presentChangeRequest(row) };
    },
  );

  api.get(
    `${PREFIX}/:crId/diff`,
    {
      schema: {
        tags,
        summary:
          'The unified diff and file list (three-dot on live branches; captured SHAs once merged); Accept: text/x-diff for the bare patch. ' +
          'A diff too large to show is truncated: every file is listed, and those left out of the patch carry a note (truncated: true; X-Svc-Diff-Truncated on text/x-diff)',
        params: ChangeRequestParams,
        response: {
          200: { description: 'The diff', content: { 'application/json': { schema: Diff }, 'text/x-diff': { schema: Type.String() } } },
          ...errorResponses(400, 401, 403, 404, 409, 422, 502),
        },
      },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const diff = await diffChangeRequest(ctx, { projectId: request.params.id, crRef: request.params.crId });
      if (diff.truncated) reply.header('x-svc-diff-truncated', 'true');
      if (wantsPatchText(request)) return reply.type('text/x-diff; charset=utf-8').send(patchText(diff));
      return diff;
    },
  );

  api.get(
    `${PREFIX}/:crId/merge-preview`,
    {
      schema: { tags, summary: 'What merging now would do: fast-forward, clean merge, or the conflicting paths', params: ChangeRequestParams, response: { 200: MergePreview, ...errorResponses(400, 401, 403, 404, 409, 502) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return presentMergePreview(await previewChangeRequestMerge(ctx, { projectId: request.params.id, crRef: request.params.crId }));
    },
  );

  api.post(
    `${PREFIX}/:crId/merge`,
    {
      schema: {
        tags,
        summary: 'Merge: manifest gate, then fast-forward or a three-way merge commit, landed by compare-and-swap',
        params: ChangeRequestParams,
        body: MergeBody,
        response: { 200: MergeResult, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 502) },
      },
      // The body is optional (spec 2: `message` optional): a bodiless POST is the same as `{}` (json-body.ts).
      preParsing: mayDo('merge'),
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const outcome = await mergeChangeRequest(ctx, { projectId: request.params.id, crRef: request.params.crId, message: request.body.message });
      return { change_request: presentChangeRequest(outcome.row), merge_commit_sha: outcome.mergeCommitSha, fast_forward: outcome.fastForward };
    },
  );

  api.post(
    `${PREFIX}/:crId/close`,
    {
      schema: { tags, summary: 'Close without merging (idempotent; 409 when merged)', params: ChangeRequestParams, response: { 200: ChangeRequestEnvelope, ...errorResponses(400, 401, 403, 404, 409) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { change_request: presentChangeRequest(await closeChangeRequest(ctx, { projectId: request.params.id, crRef: request.params.crId })) };
    },
  );

  api.post(
    `${PREFIX}/:crId/reopen`,
    {
      schema: { tags, summary: 'Reopen a closed change request (409 unless closed)', params: ChangeRequestParams, response: { 200: ChangeRequestEnvelope, ...errorResponses(400, 401, 403, 404, 409) } },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { change_request: presentChangeRequest(await reopenChangeRequest(ctx, { projectId: request.params.id, crRef: request.params.crId })) };
    },
  );

  api.post(
    `${PREFIX}/:crId/request-changes`,
    {
      schema: {
        tags,
        summary: "Append feedback to metadata.requested_changes and queue it for the originating session's agent",
        params: ChangeRequestParams,
        body: RequestChangesBody,
        response: { 200: ChangeRequestEnvelope, ...errorResponses(400, 401, 403, 404, 409, 413) },
      },
      preParsing: mayDo('request-changes'),
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      const row = await requestChanges(ctx, { projectId: request.params.id, crRef: request.params.crId, feedback: request.body.feedback });
      return { change_request: presentChangeRequest(row) };
    },
  );
}
