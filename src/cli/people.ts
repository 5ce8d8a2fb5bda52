import type { ApiClient } from './api-client.js';

/**
 * Who a user id is, for output: people are shown by name. One request names every id a command prints;
 * an id the server does not name (a deleted user, an older server) is shown as it is.
 */
export async function peopleNames(client: ApiClient, projectId: string, ids: ReadonlyArray<string | null | undefined>): Promise<(id: string | null | undefined) => string> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
  const names = new Map<string, string>();
  if (wanted.length > 0) {
    try {
      const { body } = await client.request<{ people: Array<{ id: string; name: string }> }>('GET', `/v1/projects/${projectId}/people?ids=${wanted.slice(0, 100).join(',')}`);
      for (const person of body.people) names.set(person.id, person.name);
    } catch {
      // Names are a courtesy: the command's own answer stands without them.
    }
  }
  return (id) => (id ? (names.get(id) ?? id) : '?');
}
