/** What the `svc session` commands share: the API's session shape, the project, and `<id>` checks. */
import type { Static } from 'typebox';
import { isUuid } from '../../ids.js';
import type { Session as SessionSchema } from '../../sessions/schemas.js';
import { ApiClient } from '../api-client.js';
import { resolveCredentials, type Credentials } from '../cli-config.js';
import { CliError, type CliDeps } from '../deps.js';
import { resolveProjectRef } from '../project-ref.js';

export type Session = Static<typeof SessionSchema>;

export interface SessionClient {
  client: ApiClient;
  credentials: Credentials;
  projectId: string;
  base: string;
}

export async function sessionClient(options: { project?: string | undefined }, deps: CliDeps): Promise<SessionClient> {
  const credentials = resolveCredentials(deps);
  const client = new ApiClient(credentials);
  const projectId = await resolveProjectRef(client, options.project, deps);
  return { client, credentials, projectId, base: `/v1/projects/${projectId}/sessions` };
}

/** A session id is a UUID; anything else is a usage error (exit 2) before any request. */
export function sessionPath(base: string, id: string, action?: string): string {
  const trimmed = id.trim();
  if (!isUuid(trimmed)) throw new CliError(`${JSON.stringify(id)} is not a session id; svc session ls lists them.`, 2);
  return `${base}/${trimmed.toLowerCase()}${action ? `/${action}` : ''}`;
}

export function describeSession(session: Session): string {
  return `${session.id} ${session.status}${session.error ? `: ${session.error}` : ''}`;
}
