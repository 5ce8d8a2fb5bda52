import type { CliDeps } from '../deps.js';
import { CliError } from '../deps.js';
import { printJson } from '../output.js';
import { resolveSessionId, sessionClient, sessionPath, type Session } from './session-api.js';

export interface SessionSendOptions {
  project?: string;
  json?: boolean;
}

async function readAllText(stdin: CliDeps['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** `svc session send <id> <text>` (`-` reads the text from standard input): wakes a stopped session. */
export async function runSessionSend(id: string, text: string, options: SessionSendOptions, deps: CliDeps): Promise<void> {
  const message = text === '-' ? await readAllText(deps.stdin) : text;
  if (message.trim() === '') throw new CliError('The message is empty; say what the agent should do.', 2);
  const found = await sessionClient(options, deps);
  const { body } = await found.client.request<{ session: Session }>('POST', sessionPath(found.base, await resolveSessionId(found, id), 'messages'), { body: { text: message }, fieldNames: { text: 'the message' } });
  if (options.json) return printJson(deps, body.session);
  deps.stderr.write(body.session.status === 'running' ? 'Sent.\n' : `Sent; the session is ${body.session.status} and gets it once it is running.\n`);
}
