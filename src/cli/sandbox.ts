import type { Command } from 'commander';
import { CliError } from './deps.js';

export function registerSandbox(program: Command): void {
  const sandbox = program.command('sandbox').description('sandbox providers: the docker provider\'s image');
  const image = sandbox.command('image').description('the docker provider\'s sandbox image');
  image
    .command('build')
    .description('build the sandbox image offline (debootstrap + Node + git + svc) on the engine DOCKER_HOST names; instant when nothing changed')
    .option('--mirror <url>', 'Debian mirror for the base root (SVC_SANDBOX_DEBIAN_MIRROR, default http://deb.debian.org/debian)')
    .action(async (options: { mirror?: string }) => {
      const { DockerEngine } = await import('../sessions/providers/docker-engine.js');
      const { buildSandboxImage } = await import('../sessions/providers/sandbox-image.js');
      const engine = new DockerEngine();
      const ping = await engine.request('GET', '/_ping', undefined, { timeoutMs: 5_000 }).catch(() => null);
      if (!ping || ping.status !== 200) throw new CliError(`no Docker engine answers at ${engine.address}: start it (dockerd, or systemctl start docker) or point DOCKER_HOST at one`);
      try {
        const result = await buildSandboxImage(engine, { mirror: options.mirror ?? (process.env.SVC_SANDBOX_DEBIAN_MIRROR || undefined), log: (line) => process.stderr.write(`${line}\n`) });
        process.stdout.write(`${result.tag}${result.built ? '' : ' (already built)'}\n`);
      } catch (error) {
        throw new CliError(error instanceof Error ? error.message : String(error));
      }
    });
}
