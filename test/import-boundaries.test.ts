/**
 * The layers of docs/architecture.md ("Folders and what they may use"), checked: every import of every
 * file under src/ (tests and src/testing aside) goes the way the table allows, packages stay where they
 * belong, the web pages reach the domains through their operations (never a store, never the database), the page assets live
 * with the pages, and the programs that ship on their own (the in-sandbox daemon, the CLI) never pull in the
 * database drivers, Fastify or the chart engine; the git door imports nothing of the product.
 * test/sandbox-bundles.test.ts checks the same of the bundles those programs ship as (dist/sandbox/,
 * scripts/bundle-sandbox.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from './support/runtime-fixture.js';

const srcDir = path.join(repoRoot, 'src');

/** A folder of src/; `kernel` is the files directly in src/ (errors, ids, config, the ctx type, …). */
type Layer =
  | 'kernel'
  | 'shared'
  | 'daemon'
  | 'db'
  | 'background'
  | 'git'
  | 'repositories'
  | 'accounts'
  | 'projects'
  | 'git-host'
  | 'dashboards'
  | 'changes'
  | 'manifest'
  | 'sessions'
  | 'triggers'
  | 'web'
  | 'server'
  | 'cli';

const LAYERS: readonly Layer[] = [
  'kernel',
  'shared',
  'daemon',
  'db',
  'background',
  'git',
  'repositories',
  'accounts',
  'projects',
  'git-host',
  'dashboards',
  'changes',
  'manifest',
  'sessions',
  'triggers',
  'web',
  'server',
  'cli',
];

/** What each layer's code may import at run time, besides itself (docs/architecture.md's table). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  kernel: [],
  shared: [],
  daemon: ['shared'],
  db: ['kernel'],
  background: ['db', 'kernel'],
  // The git door: nothing of the product, not even the kernel (see the test of its own below).
  git: [],
  repositories: ['git', 'kernel'],
  accounts: ['db', 'background', 'kernel'],
  projects: ['accounts', 'repositories', 'git', 'db', 'kernel'],
  'git-host': ['projects', 'repositories', 'accounts', 'git', 'kernel'],
  dashboards: ['accounts', 'db', 'kernel'],
  changes: ['accounts', 'projects', 'repositories', 'git', 'db', 'manifest', 'background', 'kernel'],
  manifest: ['kernel'],
  sessions: ['accounts', 'projects', 'repositories', 'git', 'changes', 'manifest', 'shared', 'background', 'db', 'kernel'],
  triggers: ['accounts', 'projects', 'repositories', 'git', 'manifest', 'sessions', 'background', 'db', 'kernel'],
  // Not db/: a page's data comes through the domains' operations (types of db/ still may, see below).
  web: ['accounts', 'projects', 'dashboards', 'changes', 'sessions', 'triggers', 'background', 'kernel'],
  server: LAYERS,
  cli: ['shared', 'kernel'],
};

/**
 * Type-only imports (`import type`) that cross anyway: the ctx and Services types name every domain's
 * services, and the CLI and the web pages type the bodies they show with the domains' types (never their code).
 */
const MAY_IMPORT_TYPES: Partial<Record<Layer, readonly Layer[]>> = {
  kernel: LAYERS,
  cli: LAYERS,
  web: LAYERS,
};

/**
 * server/'s HTTP kit, which routes use: authenticate, check access, declare schemas, word errors.
 * Route files (routes.ts, routes/, *-routes.ts) and the web pages may import these and nothing else of server/.
 */
const SERVER_HTTP_KIT = ['access-check', 'authenticate', 'client-signal', 'credentials', 'error-handler', 'etag', 'http-schemas', 'schema-errors'].map((name) => `src/server/${name}.ts`);

/**
 * A domain's store: its queries, with no access check. The web pages call the domains' operations
 * instead (as the API routes do), so the same rules hold on both; even a store's types come through them.
 */
function isDomainStore(file: string): boolean {
  return /^src\/[^/]+\/(?:store\.ts$|[^/]*-store\.ts$|store\/)/.test(file);
}

/** The web pages' stylesheet and client script: served by src/web/assets.ts, used nowhere else. */
const WEB_PAGE_ASSETS = ['src/web/styles.ts', 'src/web/client-script.ts'];

/** Packages the in-sandbox daemon may use (it ships without node_modules of its own): none yet. */
const DAEMON_PACKAGES: readonly string[] = [];

/** Packages that belong to one part: a file elsewhere importing them is a crossing. */
const PACKAGE_HOMES: Record<string, (file: string) => boolean> = {
  fastify: isHttpFile,
  '@fastify/*': isHttpFile,
  pg: (file) => file.startsWith('src/db/'),
  'better-sqlite3': (file) => file.startsWith('src/db/'),
  echarts: (file) => file.startsWith('src/dashboards/render/'),
  commander: (file) => file.startsWith('src/cli/'),
  // Kysely's code (the sql tag, expression builders) builds queries, which the web pages leave to the operations; its types may cross.
  kysely: (file) => !file.startsWith('src/web/'),
};

/**
 * Crossings that exist today, each with why it stays for now. The test fails when one disappears too,
 * so this list stays true: delete the line when you fix it.
 */
const KNOWN_CROSSINGS: Record<string, string> = {
  'src/cli/serve-run.ts -> src/server/cluster.ts': '`svc serve` starts the server: it is loaded only by that verb (a dynamic import), never by the other verbs',
  'src/cli/serve-run.ts -> src/server/start.ts': '`svc serve`, as above',
  'src/cli/serve-run.ts -> src/sessions/providers/unavailable.ts': '`svc serve` tells an unavailable sandbox provider (one line with the fix) from other start-up failures by its error class, which imports nothing',
  'src/cli/sandbox.ts -> src/sessions/providers/docker-engine.ts': '`svc sandbox image build` is an operator command that drives the Docker engine like svc serve does; loaded only by that verb (a dynamic import)',
  'src/cli/sandbox.ts -> src/sessions/providers/sandbox-image.ts': '`svc sandbox image build`, as above',
  'src/cli/token.ts -> src/accounts/capabilities.ts': 'the capability names for `svc token create --help`; a constant list, to move to src/shared with the wire types',
};

/** Kysely's query builders: calling one starts a query. */
const QUERY_BUILDERS = /\.\s*(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\s*\(/g;
/** Kysely's sql tag, with or without a type argument: sql`…`, sql<number>`…`. */
const SQL_TAG = /\bsql\s*(?:<[^`;]*>)?\s*`/g;

/**
 * How a web page queries the database itself, if it does: pages ask the domains' operations, which check
 * access as they do for the API, so a query in a page is a read or write that skips that check.
 */
function databaseUse(file: string, text: string): string[] {
  const from = rel(file);
  if (!from.startsWith('src/web/')) return [];
  const builders = [...text.matchAll(QUERY_BUILDERS)].map((match) => `${from} -> the database (${match[1]!})`);
  const tags = [...text.matchAll(SQL_TAG)].map(() => `${from} -> the database (sql tag)`);
  return [...new Set([...builders, ...tags])];
}

const IMPORT = /(?:^|[\s;])(import|export)(\s+type)?\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

interface Import {
  specifier: string;
  typeOnly: boolean;
  dynamic: boolean;
}

function importsOf(text: string): Import[] {
  return [...text.matchAll(IMPORT)].map((match) => ({
    specifier: (match[3] ?? match[4] ?? match[5])!,
    typeOnly: match[2] !== undefined,
    dynamic: match[4] !== undefined,
  }));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' || entry.name === 'fixtures' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** A path relative to the repository, with forward slashes. */
function rel(file: string): string {
  return path.relative(repoRoot, file).split(path.sep).join('/');
}

function layerOf(file: string): Layer {
  const parts = rel(file).split('/');
  if (parts.length === 2) return 'kernel';
  const folder = parts[1] as Layer;
  if (!LAYERS.includes(folder)) throw new Error(`${rel(file)} is in a folder the layer table does not name; add src/${parts[1]}/ to docs/architecture.md and this test`);
  return folder;
}

function isRouteFile(file: string): boolean {
  return /\/routes(\/|\.ts$)|-routes\.ts$/.test(file);
}

function isHttpFile(file: string): boolean {
  return file.startsWith('src/server/') || file.startsWith('src/web/') || isRouteFile(file);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function homeOf(name: string): ((file: string) => boolean) | undefined {
  return PACKAGE_HOMES[name] ?? (name.startsWith('@') ? PACKAGE_HOMES[`${name.split('/')[0]}/*`] : undefined);
}

function resolveRelative(from: string, specifier: string): string {
  return path.resolve(path.dirname(from), specifier).replace(/\.js$/, '.ts');
}

/** What is wrong with one import, or null when the table allows it. */
function crossing(file: string, imported: Import): string | null {
  const from = rel(file);
  const fromLayer = layerOf(file);
  if (imported.specifier.startsWith('node:')) return null;
  if (!imported.specifier.startsWith('.')) {
    const name = packageName(imported.specifier);
    if (fromLayer === 'daemon' || fromLayer === 'shared') return DAEMON_PACKAGES.includes(name) ? null : `${from} -> package ${name}`;
    const home = homeOf(name);
    return imported.typeOnly || !home || home(from) ? null : `${from} -> package ${name}`;
  }
  const target = resolveRelative(file, imported.specifier);
  const to = rel(target);
  const toLayer = layerOf(target);
  if (fromLayer === 'web' && isDomainStore(to)) return `${from} -> ${to}`;
  if (fromLayer !== 'web' && WEB_PAGE_ASSETS.includes(to)) return `${from} -> ${to}`;
  if (toLayer === fromLayer) return null;
  if (MAY_IMPORT[fromLayer].includes(toLayer)) return null;
  if (imported.typeOnly && MAY_IMPORT_TYPES[fromLayer]?.includes(toLayer)) return null;
  if ((isRouteFile(from) || fromLayer === 'web') && SERVER_HTTP_KIT.includes(to)) return null;
  return `${from} -> ${to}`;
}

test('every import under src/ goes the way docs/architecture.md allows', () => {
  const files = sourceFiles(srcDir);
  expect(files.length).toBeGreaterThan(100);
  const found: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    for (const imported of importsOf(text)) {
      const problem = crossing(file, imported);
      if (problem) found.push(problem);
    }
    found.push(...databaseUse(file, text));
  }
  const unexpected = [...new Set(found)].filter((problem) => !(problem in KNOWN_CROSSINGS)).sort();
  expect(unexpected, 'imports that cross a layer, and web pages that query the database (see docs/architecture.md)').toEqual([]);
  const fixed = Object.keys(KNOWN_CROSSINGS).filter((known) => !found.includes(known));
  expect(fixed, 'known crossings that no longer exist: delete them from KNOWN_CROSSINGS').toEqual([]);
  // The rules above name these files: a rename must not leave them checking nothing.
  for (const asset of WEB_PAGE_ASSETS) expect(fs.existsSync(path.join(repoRoot, asset)), asset).toBe(true);
  expect(files.map(rel).filter(isDomainStore)).toContain('src/dashboards/store.ts');
  expect(files.map(rel).filter((file) => file.startsWith('src/web/app/')).length).toBeGreaterThan(5);
});

/** Every file a program loads when it starts: its static imports, followed (dynamic imports load later, if ever). */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imported of importsOf(fs.readFileSync(file, 'utf8'))) {
      if (imported.dynamic || imported.typeOnly || imported.specifier.startsWith('node:')) continue;
      if (imported.specifier.startsWith('.')) queue.push(resolveRelative(file, imported.specifier));
      else packages.add(packageName(imported.specifier));
    }
  }
  return { files, packages };
}

test('the in-sandbox daemon loads only Node built-ins, the named packages, src/daemon and src/shared', () => {
  for (const entry of ['svc-agent.ts', 'svc-entrypoint.ts']) {
    const { files, packages } = staticClosure(path.join(srcDir, 'daemon', entry));
    expect([...files].map(rel).filter((file) => !file.startsWith('src/daemon/') && !file.startsWith('src/shared/')), entry).toEqual([]);
    expect([...packages].filter((name) => !DAEMON_PACKAGES.includes(name)), entry).toEqual([]);
    // The walk reached the shared module the daemon needs.
    if (entry === 'svc-agent.ts') expect([...files].map(rel)).toContain('src/shared/user-context.ts');
  }
});

test('the git door loads nothing of the product and no package: only Node built-ins and src/git', () => {
  const door = sourceFiles(path.join(srcDir, 'git'));
  expect(door.map(rel)).toContain('src/git/run-git.ts');
  for (const file of door) {
    // Type-only imports count too: the door names no type of the product either.
    const outside = importsOf(fs.readFileSync(file, 'utf8')).filter((imported) => !imported.specifier.startsWith('node:') && !imported.specifier.startsWith('./'));
    expect(outside.map((imported) => imported.specifier), rel(file)).toEqual([]);
  }
});

test('the svc command loads no database driver, web framework or chart engine until `svc serve` starts the server', () => {
  const { files, packages } = staticClosure(path.join(srcDir, 'cli', 'main.ts'));
  expect(files.size).toBeGreaterThan(10);
  expect([...packages].filter((name) => ['pg', 'better-sqlite3', 'kysely', 'fastify', 'echarts'].includes(name) || name.startsWith('@fastify/'))).toEqual([]);
  expect([...files].map(rel).filter((file) => file.startsWith('src/server/') || file.startsWith('src/db/'))).toEqual([]);
});

test('the import check reads every form of import, and tells type-only ones apart', () => {
  const sample = "import { Kysely } from 'kysely';\nimport type { X } from '../server/x.js';\nexport { y } from './y.js';\nconst z = await import('fastify');\nimport 'node:fs';\nexport type { W } from './w.js';";
  expect(importsOf(sample)).toEqual([
    { specifier: 'kysely', typeOnly: false, dynamic: false },
    { specifier: '../server/x.js', typeOnly: true, dynamic: false },
    { specifier: './y.js', typeOnly: false, dynamic: false },
    { specifier: 'fastify', typeOnly: false, dynamic: true },
    { specifier: 'node:fs', typeOnly: false, dynamic: false },
    { specifier: './w.js', typeOnly: true, dynamic: false },
  ]);
  // A domain importing the server's assembly, or the database driver, is a crossing.
  expect(crossing(path.join(srcDir, 'changes', 'x.ts'), { specifier: '../server/start.js', typeOnly: false, dynamic: false })).toBe('src/changes/x.ts -> src/server/start.ts');
  expect(crossing(path.join(srcDir, 'sessions', 'x.ts'), { specifier: 'pg', typeOnly: false, dynamic: false })).toBe('src/sessions/x.ts -> package pg');
  expect(crossing(path.join(srcDir, 'sessions', 'routes.ts'), { specifier: '../server/authenticate.js', typeOnly: false, dynamic: false })).toBeNull();
  // The git door may not reach even the kernel's types; a project repository may use the door.
  expect(crossing(path.join(srcDir, 'git', 'x.ts'), { specifier: '../config.js', typeOnly: true, dynamic: false })).toBe('src/git/x.ts -> src/config.ts');
  expect(crossing(path.join(srcDir, 'repositories', 'x.ts'), { specifier: '../git/run-git.js', typeOnly: false, dynamic: false })).toBeNull();
  // A web page goes through the dashboards' operations, not their store, not even for a type.
  expect(crossing(path.join(srcDir, 'web', 'x.ts'), { specifier: '../dashboards/store.js', typeOnly: true, dynamic: false })).toBe('src/web/x.ts -> src/dashboards/store.ts');
  expect(crossing(path.join(srcDir, 'web', 'app', 'x.ts'), { specifier: '../../sessions/session-store.js', typeOnly: false, dynamic: false })).toBe('src/web/app/x.ts -> src/sessions/session-store.ts');
  expect(crossing(path.join(srcDir, 'web', 'x.ts'), { specifier: '../dashboards/read-dashboards.js', typeOnly: false, dynamic: false })).toBeNull();
  // The pages' stylesheet and client script stay the pages' own, even for the server that may import the rest of web/.
  expect(crossing(path.join(srcDir, 'server', 'x.ts'), { specifier: '../web/styles.js', typeOnly: false, dynamic: false })).toBe('src/server/x.ts -> src/web/styles.ts');
  expect(crossing(path.join(srcDir, 'server', 'x.ts'), { specifier: '../web/assets.js', typeOnly: false, dynamic: false })).toBeNull();
  expect(crossing(path.join(srcDir, 'web', 'layout.ts'), { specifier: './client-script.js', typeOnly: false, dynamic: false })).toBeNull();
});

test('the import check tells a web page that uses the database from one that calls the operations', () => {
  const page = path.join(srcDir, 'web', 'app', 'x.ts');
  // Importing db/'s code, or Kysely's, is a crossing; their types are not (a page may name a row's type).
  expect(crossing(page, { specifier: '../../db/values.js', typeOnly: false, dynamic: false })).toBe('src/web/app/x.ts -> src/db/values.ts');
  expect(crossing(page, { specifier: '../../db/schema.js', typeOnly: true, dynamic: false })).toBeNull();
  expect(crossing(page, { specifier: 'kysely', typeOnly: false, dynamic: false })).toBe('src/web/app/x.ts -> package kysely');
  expect(crossing(page, { specifier: 'kysely', typeOnly: true, dynamic: false })).toBeNull();
  expect(crossing(path.join(srcDir, 'changes', 'x.ts'), { specifier: 'kysely', typeOnly: false, dynamic: false })).toBeNull();
  // A query built in a page, on whatever handle, or written with the sql tag.
  expect(databaseUse(page, "const found = await ctx.db.selectFrom('projects').select('id').where('slug', '=', slug).executeTakeFirst();")).toEqual(['src/web/app/x.ts -> the database (selectFrom)']);
  expect(databaseUse(page, "await services.db\n  .insertInto('sign_ins').values(row).execute();\nawait trx.updateTable('users').set(changes).execute();")).toEqual([
    'src/web/app/x.ts -> the database (insertInto)',
    'src/web/app/x.ts -> the database (updateTable)',
  ]);
  expect(databaseUse(page, "await view.ctx.db.deleteFrom('sessions').execute();")).toEqual(['src/web/app/x.ts -> the database (deleteFrom)']);
  expect(databaseUse(page, 'const { rows } = await sql<{ n: number }>`select count(*) as n from users`.execute(db);')).toEqual(['src/web/app/x.ts -> the database (sql tag)']);
  // Calling the operations is what a page does; a domain's own queries are its business.
  expect(databaseUse(page, 'const project = await getProjectBySlug(ctx, slug);\nconst sessions = await listSessions(ctx, { projectId: project.id });')).toEqual([]);
  expect(databaseUse(path.join(srcDir, 'projects', 'x.ts'), "await ctx.db.selectFrom('projects').selectAll().execute();")).toEqual([]);
});
