/**
 * The environment injected into a sandbox at every boot (spec 3, "Injected environment"): exactly the
 * table's variables with their stated values, next to the project's secrets as plain variables.
 */
import { createHash } from 'node:crypto';
import type { ProjectRow } from '../accounts/access.js';
import { cloneUrl } from '../projects/presenters.js';
import type { ModelGateway } from '../config.js';
import type { Services } from '../context.js';
import { readBool } from '../db/values.js';
import type { SessionRow } from './session-row.js';
import { cliTokenOf, sandboxTokenOf } from './session-tokens.js';

/** The daemon's external port inside an isolating sandbox; the process provider sets a free one. */
export const DAEMON_PORT = 8000;

export async function sandboxEnvironment(services: Services & { secretKey: string }, project: ProjectRow, session: SessionRow): Promise<Record<string, string>> {
  const secrets = await services.db.selectFrom('secrets').select(['name', 'value', 'updated_at']).where('project_id', '=', project.id).orderBy('name').execute();
  const revision = createHash('sha256')
    .update(secrets.map((secret) => `${secret.name}\u0000${secret.updated_at}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const sandboxToken = sandboxTokenOf(services.secretKey, session.id);
  const cliToken = cliTokenOf(services.secretKey, session.id);
  const env: Record<string, string> = {};
  // Secrets first: no secret can shadow a variable of svc's (their names cannot start with SVC_ anyway).
  for (const secret of secrets) env[secret.name] = secret.value;
  Object.assign(env, {
    SVC_PROJECT_ID: project.id,
    SVC_SESSION_ID: session.id,
    SVC_BRANCH_NAME: session.branch,
    SVC_REPO_URL: cloneUrl(project, services.config),
    SVC_DEFAULT_BRANCH: project.default_branch,
    SVC_BASE_REF: session.base_ref,
    SVC_SERVICE_PORT: String(DAEMON_PORT),
    SVC_API_URL: `${services.config.baseUrl}/v1`,
    SVC_AGENT_NAME: session.agent ?? 'default',
    SVC_PROJECT_AUTO_CLONE: '1',
    SVC_PROJECT_SECRET_NAMES: secrets.map((secret) => secret.name).join(','),
    SVC_PROJECT_SECRETS_REVISION: revision,
    SVC_SANDBOX_TOKEN: sandboxToken,
    SVC_TOKEN: sandboxToken,
    SVC_CLI_TOKEN: cliToken,
    SVC_EXECUTOR_TOKEN: cliToken,
    SVC_BOOTSTRAP_RUNTIME_SESSION: '1',
  });
  if (session.model) env.SVC_AGENT_MODEL = session.model;
  const gateway = await modelGatewayFor(services, project, session);
  if (gateway) Object.assign(env, { SVC_LLM_API_KEY: gateway.apiKey, SVC_LLM_BASE_URL: gateway.baseUrl });
  // Sent once per session: a resume after the runtime took it does not send it again.
  if (session.initial_prompt && !session.initial_prompt_sent_at) env.SVC_INITIAL_PROMPT = session.initial_prompt;
  return env;
}

/**
 * The operator's model gateway, when all three gates of bundled model access hold at this boot: the operator
 * offers one, the project opted in, and the user who launched the session is entitled. Read afresh at every
 * boot, so turning a gate off takes effect at the next resume.
 */
async function modelGatewayFor(services: Services, project: ProjectRow, session: SessionRow): Promise<ModelGateway | undefined> {
  const gateway = services.config.modelGateway;
  if (!gateway) return undefined;
  const row = await services.db
    .selectFrom('projects')
    .innerJoin('users', (join) => join.on('users.id', '=', session.created_by).onRef('users.account_id', '=', 'projects.account_id'))
    .select(['projects.bundled_model_access', 'users.model_access'])
    .where('projects.id', '=', project.id)
    .executeTakeFirst();
  return row && readBool(row.bundled_model_access) && readBool(row.model_access) ? gateway : undefined;
}
