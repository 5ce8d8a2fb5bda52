import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import { checkAccessFirst } from '../server/access-check.js';
import { clientSignal } from '../server/client-signal.js';
import { requirePublish } from './access.js';
import type { ExpectedVersion } from './publish-dashboard.js';
import { versionEtag } from './version-etag.js';
import { authenticate } from '../server/authenticate.js';
import { etagMatches } from '../server/etag.js';
import { errorResponses } from '../server/http-schemas.js';
import { checkDashboard, type DashboardDrawer } from './check-dashboard.js';
import { publishDashboard } from './publish-dashboard.js';
import { getDashboard, getDashboardVersions, listDashboards, removeDashboard, type DashboardDocument } from './read-dashboards.js';
import { dashboardSpecSchema } from './spec-schema.js';

export const DASHBOARD_BODY_LIMIT = 16 * 1024 * 1024;

const tags = ['dashboards'];
const SlugParams = Type.Object({ slug: Type.String() });

const PublishResult = Type.Object({
  slug: Type.String(),
  version: Type.Integer(),
  url: Type.String(),
  created: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

const DashboardSummary = Type.Object({
  slug: Type.String(),
  title: Type.String(),
  subtitle: Type.Union([Type.String(), Type.Null()]),
  group: Type.Union([Type.String(), Type.Null()]),
  groupOrder: Type.Union([Type.Integer(), Type.Null()]),
  order: Type.Union([Type.Integer(), Type.Null()]),
  tone: Type.Union([Type.String(), Type.Null()]),
  layout: Type.Union([Type.String(), Type.Null()]),
  version: Type.Integer(),
  updated_at: Type.String(),
  url: Type.String(),
});

const DashboardDocumentObject = Type.Object({
  slug: Type.String(),
  version: Type.Integer(),
  // The full schema is the request body of POST /api/dashboards; repeating it here would duplicate its $defs.
  spec: Type.Object({}, { additionalProperties: true, description: 'The DashboardSpec exactly as published' }),
  created_at: Type.String(),
  updated_at: Type.String(),
  url: Type.String(),
});

/** Described as the object for OpenAPI; sent as pre-built JSON text (see documentJson). */
const DashboardDocumentSchema = Type.Unsafe<string>(DashboardDocumentObject);

/** `If-Match: "3"` (or 3, W/"3", *) → 3 | '*'; absent → undefined. */
/** `If-Match`: a version number (contract §3), or the entity tag a read gave, which also names when it was published. */
export function parseIfMatch(header: string | undefined): ExpectedVersion | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const match = /^(?:W\/)?"?(\d{1,9})(?:\.([0-9a-z]{1,12}))?"?$/.exec(value);
  if (!match) throw new AppError('BAD_REQUEST', `If-Match must be a dashboard version (1 to 999999999) in quotes, such as If-Match: "3" (got ${JSON.stringify(value.slice(0, 40))}).`);
  return { version: Number(match[1]), ...(match[2] ? { publishedTag: match[2] } : {}) };
}

/** The stored spec text is spliced in as is: valid JSON by construction, and never parsed again. */
function documentJson(doc: DashboardDocument): string {
  return `{"slug":${JSON.stringify(doc.slug)},"version":${doc.version},"spec":${doc.specText},"created_at":${JSON.stringify(doc.created_at)},"updated_at":${JSON.stringify(doc.updated_at)},"url":${JSON.stringify(doc.url)}}`;
}

function parseVersion(text: string): number {
  const n = Number(text);
  if (!/^\d{1,9}$/.test(text) || n < 1) throw new AppError('BAD_REQUEST', `The version must be an integer from 1 to 999999999 (got ${JSON.stringify(text.slice(0, 40))}).`);
  return n;
}

const IssueObject = Type.Object({ path: Type.String({ description: 'JSON pointer of the block, e.g. /sections/1/blocks/3' }), message: Type.String() });

const CheckResultObject = Type.Object({
  slug: Type.String(),
  charts: Type.Integer({ description: 'Blocks drawn as charts (chart, heatmap, gauge)' }),
  problems: Type.Array(IssueObject, { description: 'What the page would show differently from the spec, in page order, at most 100; empty when none' }),
  total: Type.Integer({ description: 'How many problems there are in all' }),
});

/** A dashboard spec as the body (publish, check): taken as bytes, up to 16 MiB. */
const SPEC_BODY = {
  bodyLimit: DASHBOARD_BODY_LIMIT,
  // Parsed and validated by the dashboards domain, on a worker thread when large.
  config: { jsonBodyAsBytes: true },
  // The spec is validated by the dashboards domain, which reports every violation as DASHBOARD_INVALID.
  validatorCompiler: () => (value: unknown) => ({ value }),
};

/** `drawer` lays out and draws a spec's page for the check (the app's page renderer). */
export function dashboardRoutes(app: FastifyInstance, services: Services, drawer: DashboardDrawer): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/api/dashboards',
    {
      ...SPEC_BODY,
      schema: {
        tags,
        summary: 'Publish a dashboard: creates it (201) or replaces the one with the same slug (200)',
        headers: Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'Expected current version, e.g. "3"' })) }),
        body: dashboardSpecSchema,
        response: { 200: PublishResult, 201: PublishResult, ...errorResponses(400, 401, 403, 409, 412, 413, 422) },
      },
      preParsing: checkAccessFirst(services, (ctx) => requirePublish(ctx, 'publish dashboards')),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const result = await publishDashboard(ctx, {
        body: request.body as unknown as Buffer,
        expectedVersion: parseIfMatch(request.headers['if-match']),
      });
      return reply.code(result.created ? 201 : 200).header('etag', versionEtag(result.version, result.updated_at)).header('location', result.url).send(result);
    },
  );

  api.post(
    '/api/dashboards/check',
    {
      ...SPEC_BODY,
      schema: {
        tags,
        summary: 'Check a dashboard without publishing it: validates the spec (422 as a publish would), draws its charts and lists what the page would show differently from the spec',
        body: dashboardSpecSchema,
        response: { 200: CheckResultObject, ...errorResponses(400, 401, 403, 413, 422, 503) },
      },
      preParsing: checkAccessFirst(services, (ctx) => requirePublish(ctx, 'check dashboards')),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      // A client that leaves stops the drawing it asked for instead of holding render threads others wait for.
      return checkDashboard(ctx, request.body as unknown as Buffer, drawer, clientSignal(request, reply));
    },
  );

  api.get(
    '/api/dashboards',
    { schema: { tags, summary: 'List the account’s dashboards', response: { 200: Type.Object({ dashboards: Type.Array(DashboardSummary) }), ...errorResponses(401, 403) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { dashboards: await listDashboards(ctx) };
    },
  );

  api.get(
    '/api/dashboards/:slug',
    { schema: { tags, summary: 'Read the current version of a dashboard', params: SlugParams, response: { 200: DashboardDocumentSchema, 304: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const doc = await getDashboard(ctx, request.params.slug);
      const etag = versionEtag(doc.version, doc.publishedAt);
      // A client may keep its copy and ask again with If-None-Match; no shared cache may keep it.
      reply.header('cache-control', 'private, no-cache').header('vary', 'Authorization');
      if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).header('etag', etag).send(null);
      return reply.header('etag', etag).type('application/json; charset=utf-8').serializer((payload: string) => payload).send(documentJson(doc));
    },
  );

  api.get(
    '/api/dashboards/:slug/versions',
    {
      schema: {
        tags,
        summary: 'List the versions of a dashboard, newest first',
        params: SlugParams,
        response: { 200: Type.Object({ versions: Type.Array(Type.Object({ version: Type.Integer(), created_at: Type.String() })) }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { versions: await getDashboardVersions(ctx, request.params.slug) };
    },
  );

  api.get(
    '/api/dashboards/:slug/versions/:n',
    {
      schema: {
        tags,
        summary: 'Read one version of a dashboard',
        params: Type.Object({ slug: Type.String(), n: Type.String() }),
        response: { 200: DashboardDocumentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const doc = await getDashboard(ctx, request.params.slug, parseVersion(request.params.n));
      return reply.header('etag', versionEtag(doc.version, doc.publishedAt)).type('application/json; charset=utf-8').serializer((payload: string) => payload).send(documentJson(doc));
    },
  );

  api.delete(
    '/api/dashboards/:slug',
    { schema: { tags, summary: 'Delete a dashboard and all its versions', params: SlugParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await removeDashboard(ctx, request.params.slug);
      return reply.code(204).send(null);
    },
  );
}
