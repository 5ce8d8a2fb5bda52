/**
 * ProjectRepository over a hosted project: what the CR engine uses to read and move branches of a
 * repository svc serves itself. History is made through the git host with the real git CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRow } from '../src/accounts/access.js';
import { PushRejectedError, RefUpdateRaceError, resolveRef } from '../src/git/index.js';
import { hostedRepositoryPath } from '../src/repositories/project-repository.js';
import { openProjectRepository } from '../src/projects/repository-of.js';
import { git, gitAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { rejection } from './support/rejection.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

async function hostedProject(name: string): Promise<{ project: ProjectRow; work: string }> {
  const created = await svc.request('POST', '/v1/projects', { body: { name } });
  expect(created.status).toBe(201);
  const project = await svc.server.services.db.selectFrom('projects').selectAll().where('id', '=', created.body.project.id).executeTakeFirstOrThrow();
  const url = new URL(created.body.project.clone_url as string);
  url.username = 'x';
  url.password = svc.adminToken;
  const work = path.join(tempDir(), 'work');
  await gitAsync(['clone', '--quiet', url.toString(), work]);
  await gitAsync(['checkout', '--quiet', '-b', 'main'], { cwd: work });
  await commit(work, 'README.md', 'hello\n');
  await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: work });
  return { project, work };
}

async function commit(work: string, file: string, content: string): Promise<string> {
  fs.writeFileSync(path.join(work, file), content);
  await gitAsync(['add', '--all'], { cwd: work });
  await gitAsync(['commit', '--quiet', '-m', `write ${file}`], { cwd: work });
  return gitAsync(['rev-parse', 'HEAD'], { cwd: work });
}

describe(`hosted ProjectRepository on ${testDialect}`, () => {
  it('opens the hosted repository, and refresh and invalidate have nothing to do', async () => {
    const { project } = await hostedProject('Open Hosted');
    const repository = await openProjectRepository(svc.server.services, project);
    expect(repository.kind).toBe('hosted');
    expect(repository.path).toBe(hostedRepositoryPath(svc.server.services.config, project.id));
    await repository.refresh({ force: true });
    repository.invalidate();
    expect(await resolveRef(repository.path, 'main')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('moves a branch by compare-and-swap, reports a moved branch as a race and never rewrites history', async () => {
    const { project, work } = await hostedProject('CAS Hosted');
    const repository = await openProjectRepository(svc.server.services, project);
    const base = (await resolveRef(repository.path, 'main')) ?? '';
    await gitAsync(['checkout', '--quiet', '-b', 'feature'], { cwd: work });
    const feature = await commit(work, 'feature.txt', 'feature\n');
    await gitAsync(['push', '--quiet', 'origin', 'feature'], { cwd: work });

    await repository.compareAndSwapBranch('main', feature, base);
    expect(await resolveRef(repository.path, 'main')).toBe(feature);
    expect(git(['--git-dir', repository.path, 'reflog', '-1', '--format=%gs', 'refs/heads/main'])).toBe('svc: merge');

    // The branch is at `feature` now, so a swap computed from `base` lost the race and changes nothing.
    const more = await commit(work, 'more.txt', 'more\n');
    await gitAsync(['push', '--quiet', 'origin', 'feature'], { cwd: work });
    const race = await rejection(repository.compareAndSwapBranch('main', more, base));
    expect(race).toBeInstanceOf(RefUpdateRaceError);
    expect(race).toMatchObject({ expectedOldSha: base, actualSha: feature });
    expect(await resolveRef(repository.path, 'main')).toBe(feature);

    const rewrite = await rejection(repository.compareAndSwapBranch('main', base, feature));
    expect(rewrite).toBeInstanceOf(PushRejectedError);
    expect(await resolveRef(repository.path, 'main')).toBe(feature);
  });

  it('serializes concurrent swaps from the same old tip: exactly one wins', async () => {
    const { project, work } = await hostedProject('CAS Concurrent');
    const repository = await openProjectRepository(svc.server.services, project);
    const base = (await resolveRef(repository.path, 'main')) ?? '';
    const candidates: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      await gitAsync(['checkout', '--quiet', '-B', name, base], { cwd: work });
      candidates.push(await commit(work, `${name}.txt`, `${name}\n`));
      await gitAsync(['push', '--quiet', 'origin', name], { cwd: work });
    }
    const outcomes = await Promise.allSettled(candidates.map((sha) => repository.compareAndSwapBranch('main', sha, base)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(RefUpdateRaceError);
    }
    expect(candidates).toContain(await resolveRef(repository.path, 'main'));
  });

  it('recreates a missing hosted repository on open, with its receive policy', async () => {
    const created = await svc.request('POST', '/v1/projects', { body: { name: 'Recreated', default_branch: 'trunk' } });
    const project = await svc.server.services.db.selectFrom('projects').selectAll().where('id', '=', created.body.project.id).executeTakeFirstOrThrow();
    const repoPath = hostedRepositoryPath(svc.server.services.config, project.id);
    fs.rmSync(repoPath, { recursive: true, force: true });
    const repository = await openProjectRepository(svc.server.services, project);
    expect(repository.path).toBe(repoPath);
    expect(git(['--git-dir', repoPath, 'symbolic-ref', 'HEAD'])).toBe('refs/heads/trunk');
    expect(git(['--git-dir', repoPath, 'config', 'receive.denyNonFastForwards'])).toBe('true');
  });

  it('brings the receive policy and hook of a repository made by an older svc up to date when first opened', async () => {
    const created = await svc.request('POST', '/v1/projects', { body: { name: 'Older' } });
    const project = await svc.server.services.db.selectFrom('projects').selectAll().where('id', '=', created.body.project.id).executeTakeFirstOrThrow();
    const repoPath = hostedRepositoryPath(svc.server.services.config, project.id);
    // What an older svc left: no fsck on receive, and a hook that only guarded deletion.
    git(['--git-dir', repoPath, 'config', '--unset', 'receive.fsckObjects']);
    fs.writeFileSync(path.join(repoPath, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 0\n');
    await openProjectRepository(svc.server.services, project);
    expect(git(['--git-dir', repoPath, 'config', 'receive.fsckObjects'])).toBe('true');
    expect(fs.readFileSync(path.join(repoPath, 'hooks', 'pre-receive'), 'utf8')).toContain('it changes only by merging a change request');
  });
});
