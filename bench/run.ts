/**
 * `npm run bench`: runs each suite and prints one JSON document. Every figure sits beside a floor
 * measured in the same run (the same work done without HTTP, or by raw git), so numbers from different
 * machines can be compared as ratios.
 */
import { runChangesBench } from './changes.js';
import { runPublishBench } from './publish.js';
import { runRenderBench } from './render.js';
import { runSessionsBench, runSessionsProxyBench } from './sessions.js';
import { runWebBench } from './web.js';
import { runTriggersBench } from './triggers.js';

interface Suite {
  name: string;
  run: () => Promise<Record<string, unknown>>;
  /** Part of another suite, run on its own only when named. */
  onlyWhenNamed?: boolean;
}

const suites: Suite[] = [
  { name: 'publish', run: runPublishBench },
  { name: 'changes', run: runChangesBench },
  { name: 'render', run: runRenderBench },
  { name: 'sessions', run: runSessionsBench },
  { name: 'sessions-proxy', run: runSessionsProxyBench, onlyWhenNamed: true },
  { name: 'web', run: runWebBench },
  { name: 'triggers', run: runTriggersBench },
];

const only = process.argv.slice(2);
const results: Record<string, unknown> = { machine: { cpus: (await import('node:os')).cpus().length, node: process.version } };
for (const suite of suites) {
  if (only.length > 0 ? !only.includes(suite.name) : suite.onlyWhenNamed) continue;
  process.stderr.write(`bench: ${suite.name}…\n`);
  results[suite.name] = await suite.run();
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
