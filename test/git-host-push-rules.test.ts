/**
 * What a push to a hosted repository may do (contract §2), end to end with the real git CLI against a real
 * svc server: the default branch is written only by a change-request merge, pushes create or update
 * branches only, malformed objects and oversized pushes are refused, and nothing of a refused push lands.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitAsync, gitFailsAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { createProject, hostedRepoPath, withToken, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

/** Every ref of the hosted repository, read from disk: what a refused push must leave untouched. */
function serverRefs(server: TestServer, projectId: string): string {
  return git(['--git-dir', hostedRepoPath(server, projectId), 'for-each-ref', '--format=%(objectname) %(refname)']);
}

function commitFile(work: string, file: string, content: string | Buffer, message: string): string {
  fs.writeFileSync(path.join(work, file), content);
  git(['add', '--all'], { cwd: work });
  git(['commit', '--quiet', '-m', message], { cwd: work });
  return git(['rev-parse', 'HEAD'], { cwd: work });
}

/** A project whose main holds one commit (the first push into its empty repository), and a clone of it. */
async function projectWithMain(server: TestServer, name: string): Promise<{ project: TestProject; work: string; first: string }> {
  const project = await createProject(server, { name: `${name} ${randomBytes(3).toString('hex')}` });
  const work = path.join(tempDir(), 'work');
  await gitAsync(['clone', '--quiet', withToken(project.clone_url, server.adminToken), work]);
  git(['checkout', '--quiet', '-b', 'main'], { cwd: work });
  const first = commitFile(work, 'README.md', '# hello\n', 'first commit');
  await gitAsync(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: work });
  return { project, work, first };
}

describe(`push rules of the git host on ${testDialect}`, () => {
  it('refuses every push to the existing default branch, admin or project token, and says to push a branch and open a change request', async () => {
    const { project, work, first } = await projectWithMain(svc, 'Reviewed Only');
    commitFile(work, 'change.txt', 'straight to main\n', 'unreviewed change');
    const before = serverRefs(svc, project.id);

    const asAdmin = await gitFailsAsync(['push', 'origin', 'HEAD:main'], { cwd: work });
    expect(asAdmin).toContain('! [remote rejected] HEAD -> main (main is the default branch; it changes only by merging a change request: push a branch and run svc cr open)');
    expect(asAdmin).toContain('remote: svc: main is the default branch of this project. It changes only when a change request is merged.');
    expect(asAdmin).toContain('remote: svc:   git push origin HEAD:refs/heads/<your-branch>');
    expect(asAdmin).toContain('remote: svc:   svc cr open --title');

    const minted = await svc.request('POST', `/v1/projects/${project.id}/tokens`, {
      body: { name: 'pusher', capabilities: ['project.read', 'project.write', 'project.gitops.push', 'project.gitops.merge'] },
    });
    const pusher = minted.body.token as string;
    const asProjectToken = await gitFailsAsync(['push', withToken(project.clone_url, pusher), 'HEAD:refs/heads/main'], { cwd: work });
    expect(asProjectToken).toContain('! [remote rejected] HEAD -> main (main is the default branch;');
    expect(serverRefs(svc, project.id)).toBe(before);
    expect(await gitAsync(['ls-remote', 'origin', 'refs/heads/main'], { cwd: work })).toBe(`${first}\trefs/heads/main`);

    // The same commits go up as a branch, which is what a change request is opened from.
    await gitAsync(['push', '--quiet', 'origin', 'HEAD:refs/heads/feature/change'], { cwd: work });
    expect(git(['--git-dir', hostedRepoPath(svc, project.id), 'rev-parse', 'refs/heads/feature/change'])).toBe(git(['rev-parse', 'HEAD'], { cwd: work }));
  });

  it('refuses tags, refs/svc, notes, remote-tracking refs, other namespaces and a branch named HEAD, each with its reason, and lands nothing', async () => {
    const { project, work, first } = await projectWithMain(svc, 'Branches Only');
    git(['tag', 'v1.0'], { cwd: work });
    const before = serverRefs(svc, project.id);
    const refusals: Array<[string, string]> = [
      ['refs/tags/v1.0', 'tags cannot be pushed: svc accepts pushes to branches (refs/heads/*) only'],
      ['refs/svc/merges/1', 'refs/svc/* belongs to svc itself: svc accepts pushes to branches (refs/heads/*) only'],
      ['refs/notes/commits', 'notes cannot be pushed: svc accepts pushes to branches (refs/heads/*) only'],
      ['refs/remotes/origin/main', 'remote-tracking refs cannot be pushed: svc accepts pushes to branches (refs/heads/*) only'],
      ['refs/pull/1/head', 'refs/pull/1/head is not a branch: svc accepts pushes to branches (refs/heads/*) only'],
      ['refs/heads/HEAD', "a branch named HEAD would be mistaken for git's HEAD; push to another branch name"],
    ];
    for (const [ref, reason] of refusals) {
      const output = await gitFailsAsync(['push', 'origin', `${first}:${ref}`], { cwd: work });
      expect(output).toMatch(new RegExp(`! \\[remote rejected\\] ${first} -> \\S+ \\(`));
      expect(output).toContain(`(${reason})`);
    }
    expect(await gitFailsAsync(['push', 'origin', 'refs/tags/v1.0'], { cwd: work })).toContain('(tags cannot be pushed');

    // One refused ref refuses the whole push, so a branch pushed with a tag does not land either.
    const mixed = await gitFailsAsync(['push', 'origin', `${first}:refs/heads/with-tag`, 'refs/tags/v1.0'], { cwd: work });
    expect(mixed).toContain(`! [remote rejected] ${first} -> with-tag (not pushed, because svc refused another ref of this push)`);
    expect(serverRefs(svc, project.id)).toBe(before);
  });

  it('refuses objects that fail git fsck (receive.fsckObjects), and stores none of them', async () => {
    const { project, work, first } = await projectWithMain(svc, 'Fsck');
    const tree = git(['rev-parse', 'HEAD^{tree}'], { cwd: work });
    // A commit whose author line has no email: git fsck calls it "missingEmail"; `hash-object --literally` writes it anyway.
    const broken = git(['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], {
      cwd: work,
      input: `tree ${tree}\nparent ${first}\nauthor Nobody 1700000000 +0000\ncommitter Nobody <n@example.test> 1700000000 +0000\n\nbroken\n`,
    });
    const before = serverRefs(svc, project.id);
    const output = await gitFailsAsync(['push', 'origin', `${broken}:refs/heads/broken`], { cwd: work });
    expect(output).toMatch(/missingEmail|fsck error/);
    expect(output).toContain('! [remote rejected]');
    expect(serverRefs(svc, project.id)).toBe(before);
    expect(() => git(['--git-dir', hostedRepoPath(svc, project.id), 'cat-file', '-e', broken])).toThrow();
  });

  it('refuses a push over SVC_MAX_PUSH_BYTES, sized by Content-Length or counted on a chunked body, and stores nothing of it', async () => {
    const small = await startTestServer({ env: { SVC_MAX_PUSH_BYTES: String(64 * 1024) } });
    try {
      const { project, work } = await projectWithMain(small, 'Size Limit');
      const repo = hostedRepoPath(small, project.id);
      const before = serverRefs(small, project.id);
      const objectsBefore = git(['--git-dir', repo, 'count-objects', '-v']);

      // Under git's http.postBuffer (1 MiB) the body goes with a Content-Length; over it, chunked.
      for (const [branch, size] of [['sized', 200 * 1024], ['chunked', 3 * 1024 * 1024]] as const) {
        git(['checkout', '--quiet', '-b', branch, 'main'], { cwd: work });
        commitFile(work, `${branch}.bin`, randomBytes(size), `${branch} blob`);
        const output = await gitFailsAsync(['push', 'origin', `HEAD:refs/heads/${branch}`], { cwd: work });
        expect(output).toMatch(new RegExp(`! \\[remote rejected\\] HEAD -> ${branch} \\(push too large: (at least )?[0-9.]+ (KiB|MiB), over this server's limit of 64\\.0 KiB \\(SVC_MAX_PUSH_BYTES\\)\\)`));
        expect(output).toContain("the server accepts at most 64.0 KiB per push. Nothing was stored.");
        expect(output).toContain('ask the administrator to raise SVC_MAX_PUSH_BYTES');
      }
      expect(serverRefs(small, project.id)).toBe(before);
      expect(git(['--git-dir', repo, 'count-objects', '-v'])).toBe(objectsBefore);
      expect(fs.readdirSync(path.join(repo, 'objects')).filter((entry) => entry.startsWith('incoming-') || entry.startsWith('tmp_'))).toEqual([]);

      // A push under the limit still lands.
      git(['checkout', '--quiet', '-b', 'small', 'main'], { cwd: work });
      const tip = commitFile(work, 'small.txt', 'fits\n', 'a small change');
      await gitAsync(['push', '--quiet', 'origin', 'HEAD:refs/heads/small'], { cwd: work });
      expect(git(['--git-dir', repo, 'rev-parse', 'refs/heads/small'])).toBe(tip);
    } finally {
      await small.close();
    }
  });

  it('reads pushes from a shallow clone (its shallow lines come first) and over protocol v2 like any other', async () => {
    const { project, work } = await projectWithMain(svc, 'Shallow');
    commitFile(work, 'second.txt', 'second\n', 'second commit');
    await gitAsync(['push', '--quiet', 'origin', 'HEAD:refs/heads/second'], { cwd: work });
    const shallow = path.join(tempDir(), 'shallow');
    await gitAsync(['clone', '--quiet', '--depth', '1', '--branch', 'second', withToken(project.clone_url, svc.adminToken), shallow]);
    expect(git(['rev-parse', '--is-shallow-repository'], { cwd: shallow })).toBe('true');

    const tip = commitFile(shallow, 'third.txt', 'third\n', 'third commit');
    await gitAsync(['-c', 'protocol.version=2', 'push', '--quiet', 'origin', 'HEAD:refs/heads/third'], { cwd: shallow });
    expect(git(['--git-dir', hostedRepoPath(svc, project.id), 'rev-parse', 'refs/heads/third'])).toBe(tip);
    const refused = await gitFailsAsync(['-c', 'protocol.version=2', 'push', '--force', 'origin', 'HEAD:refs/heads/main'], { cwd: shallow });
    expect(refused).toContain('(main is the default branch;');
  });
});
