import type { CliDeps } from '../deps.js';
import { colour } from '../output.js';
import type { ChangeRequest } from './change-request-api.js';

/** open green, merged cyan, closed red: only on a terminal, never with NO_COLOR. */
export function statusLabel(deps: Pick<CliDeps, 'isTTY' | 'env'>, status: ChangeRequest['status']): string {
  const tint = status === 'open' ? 'green' : status === 'merged' ? 'cyan' : 'red';
  return colour(deps, tint, status);
}
