import fs from 'node:fs';
import type { Command } from 'commander';
import { withoutByteOrderMark } from '../json-document.js';
import { locateJsonSyntaxError } from '../json-syntax.js';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';
import { MAX_VERSION, parseIntegerOption } from './options.js';
import { printJson, printTable, timeCell } from './output.js';
import { firstInvalidUtf8Offset } from './utf8.js';

interface PublishResult {
  slug: string;
  version: number;
  url: string;
  created: boolean;
}

interface CheckResult {
  slug: string;
  charts: number;
  problems: Array<{ path: string; message: string }>;
  total: number;
}

interface DashboardSummary {
  slug: string;
  title: string;
  group: string | null;
  version: number;
  updated_at: string;
  url: string;
}

interface DashboardDocument {
  slug: string;
  version: number;
  spec: { title: string; subtitle?: string; sections?: Array<{ blocks?: unknown[] }> };
  created_at: string;
  updated_at: string;
  url: string;
}

/**
 * The document's text, from its bytes: a leading byte order mark is dropped (as the server does), and
 * bytes that are not UTF-8 are refused here rather than sent as U+FFFD replacement characters.
 */
async function readInput(file: string, deps: CliDeps): Promise<string> {
  const name = file === '-' ? 'standard input' : file;
  let bytes: Buffer;
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of deps.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    bytes = Buffer.concat(chunks);
  } else {
    try {
      bytes = fs.readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliError(code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${String(error)}`);
    }
  }
  const content = withoutByteOrderMark(bytes);
  const invalidAt = firstInvalidUtf8Offset(content);
  if (invalidAt !== -1) {
    const offset = invalidAt + (bytes.length - content.length);
    const byte = (content[invalidAt] ?? 0).toString(16).padStart(2, '0');
    throw new CliError(`${name} is not valid UTF-8 at byte offset ${offset} (0x${byte}); save it as UTF-8 and publish again.`);
  }
  return content.toString('utf8');
}

export interface PublishOptions {
  ifMatch?: number;
  json?: boolean;
  check?: boolean;
}

async function readJsonInput(file: string, deps: CliDeps): Promise<string> {
  const text = await readInput(file, deps);
  try {
    JSON.parse(text);
  } catch (error) {
    const where = locateJsonSyntaxError(text);
    const name = file === '-' ? 'standard input' : file;
    if (where) throw new CliError(`${name} is not valid JSON: line ${where.line}, column ${where.column}: ${where.problem}. Fix it and run the command again.`);
    throw new CliError(`${name} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return text;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `chart "Deploys per day"` for `/sections/1/blocks/3` (or a field in it), so a person finds the block by eye. */
function blockLabel(spec: unknown, path: string): string {
  const match = /^\/sections\/(\d+)\/blocks\/(\d+)(?:\/|$)/.exec(path);
  if (!match) return '';
  const sections = (spec as { sections?: Array<{ blocks?: Array<{ type?: unknown; title?: unknown }> }> }).sections;
  const block = sections?.[Number(match[1])]?.blocks?.[Number(match[2])];
  if (!block || typeof block.type !== 'string') return '';
  return typeof block.title === 'string' && block.title ? ` (${block.type} ${JSON.stringify(block.title)})` : ` (${block.type})`;
}

/** One line per problem, by JSON pointer and block. */
function problemLines(result: CheckResult, specText: string): string[] {
  const spec: unknown = JSON.parse(specText);
  const lines = result.problems.map((problem) => `  ${problem.path}${blockLabel(spec, problem.path)}: ${problem.message}`);
  if (result.total > result.problems.length) lines.push(`  … and ${result.total - result.problems.length} more`);
  return lines;
}

/** The check's problems as a failure. */
function checkFailure(result: CheckResult, specText: string, verdict: string): CliError {
  return new CliError(`${result.slug}: ${plural(result.total, 'problem')} ${verdict}; fix ${result.total === 1 ? 'it' : 'them'} and run the command again.`, 1, problemLines(result, specText));
}

/**
 * After a publish, what its page shows differently from the spec, as warnings: an agent learns of a
 * chart ECharts refused without opening the page. The check draws the charts, which the page then
 * reuses. A check that fails (an older server) says nothing: the publish itself succeeded.
 */
async function warnOfProblems(client: ApiClient, specText: string, file: string, deps: CliDeps): Promise<void> {
  let result: CheckResult;
  try {
    result = (await client.request<CheckResult>('POST', '/api/dashboards/check', { rawJson: specText })).body;
  } catch {
    return;
  }
  if (result.total === 0) return;
  const again = file === '-' ? 'svc dashboard check' : `svc dashboard check ${file}`;
  deps.stderr.write(`warning: the page of ${result.slug} shows ${plural(result.total, 'problem')} (${again} lists them again):\n${problemLines(result, specText).join('\n')}\n`);
}

export async function runDashboardCheck(file: string, options: { json?: boolean }, deps: CliDeps): Promise<void> {
  const text = await readJsonInput(file, deps);
  const client = new ApiClient(resolveCredentials(deps));
  const { body } = await client.request<CheckResult>('POST', '/api/dashboards/check', { rawJson: text });
  if (options.json) {
    printJson(deps, body);
    if (body.total > 0) throw new CliError(`${body.slug}: ${plural(body.total, 'problem')} found.`);
    return;
  }
  if (body.total > 0) throw checkFailure(body, text, 'found (nothing was published)');
  deps.stderr.write(`${body.slug}: valid, ${plural(body.charts, 'chart')} drawn, no problems.\n`);
}

export async function runDashboardPublish(file: string, options: PublishOptions, deps: CliDeps): Promise<void> {
  const text = await readJsonInput(file, deps);
  const client = new ApiClient(resolveCredentials(deps));
  if (options.check) {
    const { body: checked } = await client.request<CheckResult>('POST', '/api/dashboards/check', { rawJson: text });
    if (checked.total > 0) throw checkFailure(checked, text, 'found, so it was not published');
  }
  const headers: Record<string, string> = options.ifMatch !== undefined ? { 'if-match': `"${options.ifMatch}"` } : {};
  const { body } = await client.request<PublishResult>('POST', '/api/dashboards', { rawJson: text, headers });
  if (options.json) printJson(deps, body);
  else {
    deps.stdout.write(`${body.url}\n`);
    deps.stderr.write(`${body.created ? 'Created' : 'Replaced'} dashboard ${body.slug} (version ${body.version})\n`);
  }
  if (!options.check) await warnOfProblems(client, text, file, deps);
}

export async function runDashboardLs(options: { json?: boolean }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const { body } = await client.request<{ dashboards: DashboardSummary[] }>('GET', '/api/dashboards');
  if (options.json) return printJson(deps, body.dashboards);
  if (body.dashboards.length === 0 && deps.isTTY) {
    deps.stderr.write('No dashboards yet; publish one with: svc dashboard publish dashboard.json\n');
    return;
  }
  printTable(deps, body.dashboards, [
    { header: 'slug', value: (d) => d.slug },
    { header: 'title', value: (d) => d.title },
    { header: 'group', value: (d) => d.group ?? '' },
    { header: 'version', value: (d) => String(d.version), numeric: true },
    { header: 'updated', value: (d) => timeCell(deps, d.updated_at) },
    { header: 'url', value: (d) => d.url },
  ]);
}

export async function runDashboardShow(slug: string, options: { json?: boolean; version?: number }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const path = options.version !== undefined ? `/api/dashboards/${encodeURIComponent(slug)}/versions/${options.version}` : `/api/dashboards/${encodeURIComponent(slug)}`;
  const { body } = await client.request<DashboardDocument>('GET', path);
  if (options.json) return printJson(deps, body);
  const sections = body.spec.sections ?? [];
  const blocks = sections.reduce((n, s) => n + (s.blocks?.length ?? 0), 0);
  const lines: Array<[string, string]> = [
    ['title', body.spec.title],
    ['subtitle', body.spec.subtitle ?? ''],
    ['slug', body.slug],
    ['version', String(body.version)],
    ['updated', timeCell(deps, body.updated_at)],
    ['content', `${sections.length} section${sections.length === 1 ? '' : 's'}, ${blocks} block${blocks === 1 ? '' : 's'}`],
    ['url', body.url],
  ];
  for (const [label, value] of lines) if (value) deps.stdout.write(deps.isTTY ? `${label.padEnd(9)}${value}\n` : `${label}\t${value}\n`);
}

export async function runDashboardVersions(slug: string, options: { json?: boolean }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const path = `/api/dashboards/${encodeURIComponent(slug)}`;
  const { body } = await client.request<{ versions: Array<{ version: number; created_at: string }> }>('GET', `${path}/versions`);
  // The page's address from the listing, which carries no specs (the dashboard itself may be megabytes).
  const { body: listing } = await client.request<{ dashboards: DashboardSummary[] }>('GET', '/api/dashboards');
  const pageUrl = listing.dashboards.find((dashboard) => dashboard.slug === slug)?.url ?? '';
  const newest = body.versions[0]?.version;
  // Each version keeps its page; the newest is the dashboard's own.
  const versions = body.versions.map((v) => ({ ...v, url: v.version === newest ? pageUrl : `${pageUrl}/versions/${v.version}` }));
  if (options.json) return printJson(deps, versions);
  printTable(deps, versions, [
    { header: 'version', value: (v) => String(v.version), numeric: true },
    { header: 'published', value: (v) => timeCell(deps, v.created_at) },
    { header: 'url', value: (v) => v.url },
  ]);
}

export async function runDashboardRm(slug: string, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  await client.request('DELETE', `/api/dashboards/${encodeURIComponent(slug)}`);
  deps.stderr.write(`Deleted dashboard ${slug}\n`);
}

export function registerDashboard(program: Command, deps: () => CliDeps): void {
  const dashboard = program.command('dashboard').description('publish and manage dashboards');
  dashboard
    .command('publish <file>')
    .description('publish a dashboard spec from a JSON file, or - for standard input (creates or replaces by slug)')
    .option('--if-match <version>', 'only replace if the stored version is this one', parseIntegerOption('--if-match', 1, MAX_VERSION))
    .option('--json', 'print the result as JSON')
    .option('--check', 'check it first (as svc dashboard check) and publish only if the page has no problems')
    .action((file: string, options: PublishOptions) => runDashboardPublish(file, options, deps()));
  dashboard
    .command('check <file>')
    .description('validate a dashboard spec and draw its charts without publishing; exits 1 listing each problem by JSON pointer')
    .option('--json', 'print the result as JSON')
    .action((file: string, options: { json?: boolean }) => runDashboardCheck(file, options, deps()));
  dashboard
    .command('ls')
    .description('list dashboards')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => runDashboardLs(options, deps()));
  dashboard
    .command('show <slug>')
    .description('show a dashboard (--json prints the stored spec)')
    .option('--version <n>', 'a past version', parseIntegerOption('--version', 1, MAX_VERSION))
    .option('--json', 'print JSON')
    .action((slug: string, options: { json?: boolean; version?: number }) => runDashboardShow(slug, options, deps()));
  dashboard
    .command('versions <slug>')
    .description('list a dashboard\'s versions, newest first, with the page of each')
    .option('--json', 'print JSON')
    .action((slug: string, options: { json?: boolean }) => runDashboardVersions(slug, options, deps()));
  dashboard
    .command('rm <slug>')
    .description('delete a dashboard and its versions')
    .action((slug: string) => runDashboardRm(slug, deps()));
}
