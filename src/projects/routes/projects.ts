import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../context.js';
import { checkAccessFirst, rawParams } from '../../server/access-check.js';
import { authenticate } from '../../server/authenticate.js';
import { errorResponses } from '../../server/http-schemas.js';
import { presentProject } from '../presenters.js';
import { createProject, deleteProject, getProject, listProjects, loadProjectToChange, requireProjectCreator, updateProject } from '../projects.js';
import { ProjectParams } from '../../accounts/routes/schemas.js';
import { BranchName, Project, ProjectSlug, RepoUrl } from './schemas.js';

const tags = ['projects'];

export function projectRoutes(app: FastifyInstance, services: Services): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/v1/projects',
    {
      // Projects are created by people.
      config: { tokenKinds: ['user'] },
      schema: {
        tags,
        summary: 'Create a project (hosted repository, or a mirror of repo_url, which is read first with git_token)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            slug: Type.Optional(ProjectSlug),
            default_branch: Type.Optional(BranchName),
            repo_url: Type.Optional(RepoUrl),
            git_token: Type.Optional(
              Type.String({ minLength: 1, maxLength: 65536, description: 'A token that may read (and, for merges, push to) repo_url; kept as the project secret GIT_TOKEN' }),
            ),
            git_username: Type.Optional(
              Type.String({ minLength: 1, maxLength: 200, description: 'The user name sent with git_token (default x-access-token); kept as the project secret GIT_USERNAME' }),
            ),
            check_repo: Type.Optional(Type.Boolean({ description: 'false: do not read repo_url before creating the project (default true)' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ project: Project }), ...errorResponses(400, 401, 403, 409) },
      },
      preParsing: checkAccessFirst(services, requireProjectCreator),
    },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      const project = await createProject(ctx, request.body);
      return reply.code(201).send({ project: presentProject(project, services.config) });
    },
  );

  api.get(
    '/v1/projects',
    { schema: { tags, summary: 'List the projects this token can see', response: { 200: Type.Object({ projects: Type.Array(Project) }), ...errorResponses(401) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      const projects = await listProjects(ctx);
      return { projects: projects.map((p) => presentProject(p, services.config)) };
    },
  );

  api.get(
    '/v1/projects/:id',
    { schema: { tags, summary: 'Read a project', params: ProjectParams, response: { 200: Type.Object({ project: Project }), ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { project: presentProject(await getProject(ctx, request.params.id), services.config) };
    },
  );

  api.patch(
    '/v1/projects/:id',
    {
      schema: {
        tags,
        summary: 'Rename a project, change its default branch or opt into bundled model access (needs project.admin)',
        params: ProjectParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            default_branch: Type.Optional(BranchName),
            bundled_model_access: Type.Optional(Type.Boolean({ description: "true: the project's sessions get the operator's model gateway when their user is entitled" })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ project: Project }), ...errorResponses(400, 401, 403, 404, 409, 502) },
      },
      preParsing: checkAccessFirst(services, (ctx, request) => loadProjectToChange(ctx, rawParams(request).id ?? '')),
    },
    async (request) => {
      const ctx = await authenticate(services, request);
      return { project: presentProject(await updateProject(ctx, request.params.id, request.body), services.config) };
    },
  );

  api.delete(
    '/v1/projects/:id',
    { schema: { tags, summary: 'Delete a project with its change requests, sessions, triggers and repository (needs project.admin)', params: ProjectParams, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      const ctx = await authenticate(services, request);
      await deleteProject(ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
