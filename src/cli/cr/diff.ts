import type { CliDeps } from '../deps.js';
import { bold, colour } from '../output.js';
import { crPath, projectClient, withHints } from './change-request-api.js';

export interface CrDiffOptions {
  project?: string;
  /** Commander turns --no-color into color: false. */
  color?: boolean;
}

/**
 * `svc cr diff <cr>`: the unified patch, coloured only on a terminal and never with --no-color or NO_COLOR.
 * A diff too large to show comes truncated, led by the server's note (lines starting with `#`, which git
 * apply skips) naming each file left out and why; on a terminal the note stands out in yellow.
 */
export async function runCrDiff(cr: string, options: CrDiffOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await projectClient(options, deps);
  const { text } = await withHints(() => client.request<string>('GET', crPath(base, cr, 'diff'), { accept: 'text/x-diff' }));
  const painter = { isTTY: deps.isTTY && options.color !== false, env: deps.env };
  deps.stdout.write(painter.isTTY ? colourPatch(painter, text) : text);
}

function colourPatch(deps: { isTTY: boolean; env: NodeJS.ProcessEnv }, patch: string): string {
  return patch
    .split('\n')
    .map((line) => {
      if (line.startsWith('#')) return colour(deps, 'yellow', line);
      if (line.startsWith('diff --git') || line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('index ')) return bold(deps, line);
      if (line.startsWith('@@')) return colour(deps, 'cyan', line);
      if (line.startsWith('+')) return colour(deps, 'green', line);
      if (line.startsWith('-')) return colour(deps, 'red', line);
      return line;
    })
    .join('\n');
}
