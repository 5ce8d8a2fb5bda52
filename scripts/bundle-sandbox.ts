/**
 * Bundles what runs inside a sandbox, each into one self-contained file under dist/sandbox/, so a
 * sandbox carries these and the runtime's binary and nothing else of svc's package (issue 18):
 *
 * - svc-agent.mjs: the daemon (src/daemon, src/shared; Node built-ins only);
 * - svc-entrypoint.mjs: the sandbox's first process, which runs svc-agent.mjs from beside itself;
 * - svc.mjs: the CLI the agent calls, without `svc serve` and `svc sandbox image build`, whose lazily
 *   loaded modules are replaced by src/cli/not-in-sandbox.ts (one line saying so).
 *
 * Each bundle's metafile (`<name>.meta.json`: every input it holds) is written beside it;
 * test/sandbox-bundles.test.ts reads them to check that no database driver, Fastify or ECharts got in.
 * Run by `npm run build` after tsc (node dist/scripts/bundle-sandbox.js), and by the tests' build-once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { SANDBOX_BUNDLE_DIR, bundleFile, type SandboxProgram } from '../src/sessions/providers/sandbox-programs.js';

const src = path.join(PACKAGE_ROOT, 'src');

/** Modules the sandbox's svc never loads, and what it loads in their place. */
const NOT_IN_SANDBOX = [path.join(src, 'cli', 'serve-run.ts'), path.join(src, 'sessions', 'providers', 'docker-engine.ts'), path.join(src, 'sessions', 'providers', 'sandbox-image.ts')];

function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The sandbox's stand-ins: the host-only verbs' modules and the version read from package.json. */
const sandboxStandIns: Plugin = {
  name: 'svc-sandbox-stand-ins',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return NOT_IN_SANDBOX.includes(target) ? { path: path.join(src, 'cli', 'not-in-sandbox.ts') } : undefined;
    });
    bundle.onLoad({ filter: /[/\\]src[/\\]cli[/\\]version\.ts$/ }, () => ({
      contents: `export function packageVersion(): string { return ${JSON.stringify(version())}; }\n`,
      loader: 'ts',
    }));
  },
};

/** Each program's entry: a module of its own for the CLI, two lines for the daemon's programs. */
const ENTRIES: Record<SandboxProgram, { file: string } | { contents: string }> = {
  svc: { file: path.join(src, 'cli', 'main.ts') },
  'svc-agent': { contents: "import { main } from './src/daemon/svc-agent.ts';\nawait main(process.argv.slice(2));\n" },
  'svc-entrypoint': {
    contents: `import { fileURLToPath } from 'node:url';\nimport { runEntrypoint } from './src/daemon/svc-entrypoint.ts';\nrunEntrypoint(fileURLToPath(new URL('./${bundleFile('svc-agent')}', import.meta.url)), process.argv.slice(2));\n`,
  },
};

// commander is CommonJS: its require() of Node built-ins needs a require in an ES module.
const BANNER = "#!/usr/bin/env node\nimport { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);";

export async function bundleSandboxPrograms(): Promise<void> {
  fs.mkdirSync(SANDBOX_BUNDLE_DIR, { recursive: true });
  for (const [program, entry] of Object.entries(ENTRIES) as Array<[SandboxProgram, (typeof ENTRIES)[SandboxProgram]]>) {
    const outfile = path.join(SANDBOX_BUNDLE_DIR, bundleFile(program));
    const result = await build({
      ...('file' in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.contents, resolveDir: PACKAGE_ROOT, sourcefile: `${program}-entry.ts`, loader: 'ts' } }),
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      banner: { js: BANNER },
      plugins: [sandboxStandIns],
      metafile: true,
      // Inputs in the metafile are named relative to the package, wherever the build was started.
      absWorkingDir: PACKAGE_ROOT,
      logLevel: 'warning',
    });
    fs.chmodSync(outfile, 0o755);
    fs.writeFileSync(path.join(SANDBOX_BUNDLE_DIR, `${program}.meta.json`), JSON.stringify(result.metafile, null, 2) + '\n');
  }
}

await bundleSandboxPrograms();
