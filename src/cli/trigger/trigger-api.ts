/** What the `svc trigger` commands share: the API's shapes and the project's triggers path. */
import type { Static } from 'typebox';
import type { Fire as FireSchema, FireAnswer as FireAnswerSchema, TriggerListing as TriggerListingSchema } from '../../triggers/schemas.js';
import { ApiClient } from '../api-client.js';
import { resolveCredentials } from '../cli-config.js';
import { CliError, type CliDeps } from '../deps.js';
import { resolveProjectRef } from '../project-ref.js';

export type TriggerListing = Static<typeof TriggerListingSchema>;
export type Fire = Static<typeof FireSchema>;
export type FireAnswer = Static<typeof FireAnswerSchema>;

export async function triggerClient(options: { project?: string | undefined }, deps: CliDeps): Promise<{ client: ApiClient; projectId: string; base: string }> {
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, options.project, deps);
  return { client, projectId, base: `/v1/projects/${projectId}/triggers` };
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,127}$/;

/** A slug is checked before any request: anything else is a usage error (exit 2). */
export function triggerPath(base: string, slug: string, action: string): string {
  if (!SLUG.test(slug)) throw new CliError(`${JSON.stringify(slug)} is not a trigger slug (lowercase letters, digits, "-" and "_"); svc trigger ls lists them.`, 2);
  return `${base}/${slug}/${action}`;
}
