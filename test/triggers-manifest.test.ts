/**
 * The trigger set (contract §7): read from the manifest on the default branch, good entries listed with
 * their next and last fires beside the bad ones in `errors`, read again when the branch moves (the push
 * that creates it, a merge); cron fires on the second, a past run_at fires once then stays dormant,
 * enabled: false never fires; the CLI lists them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { git, gitAsync, removeTempDirs } from '../src/git/testing/fixtures.js';
import { runTriggerFire } from '../src/cli/trigger/fire.js';
import { runTriggerFires } from '../src/cli/trigger/fires.js';
import { runTriggerLs } from '../src/cli/trigger/ls.js';
import { syncProjectTriggers } from '../src/triggers/sync-triggers.js';
import { adminCliEnv, captureDeps, runCli } from './support/cli-harness.js';
import { commitAll, pushUrl } from './support/project-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, mergeFiles, projectWithFiles, until } from './support/trigger-fixtures.js';

let svc: TestServer;

beforeAll(async () => {
  // One slot, taken by the first fire: later fires queue (no sandbox each), which is all these tests need.
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_TRIGGER_SCHEDULER_INTERVAL_MS: '60000' } });
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const MANIFEST = `
triggers:
  - slug: every-second
    type: cron
    cron: "* * * * * *"
    prompt: "tick {{ cron.fired_at }}"
  - slug: paris-morning
    name: Paris morning
    type: cron
    schedule: "0 0 9 * * 1-5"
    timezone: Europe/Paris
    prompt: Good morning
    session_mode: REUSE
  - slug: bad-zone
    type: cron
    cron: "0 0 9 * * *"
    timezone: Mars/Olympus_Mons
    prompt: never
  - slug: gh
    type: webhook
    secret_env: GH_SECRET
    prompt: "{{ body.action }}"
  - slug: off
    type: cron
    cron: "* * * * * *"
    enabled: false
    prompt: never
  - slug: Bad Slug
    type: webhook
    prompt: x
`;

describe(`the trigger listing and the scheduler (${testDialect})`, () => {
  it('lists the good entries with their next fires and the bad ones in errors, and fires a cron trigger each second', async () => {
    const project = await projectWithFiles(svc, `Triggers ${Date.now()}`, { 'svc.yaml': MANIFEST });
    const listing = await until(
      'every-second has fired twice',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body,
      (body) => Boolean(body.triggers) && body.triggers[0]?.last_fired_at !== null,
    );
    expect(listing.manifest).toEqual({ path: 'svc.yaml', commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(listing.triggers.map((t: { slug: string }) => t.slug)).toEqual(['every-second', 'paris-morning', 'gh', 'off']);
    const paris = listing.triggers[1];
    expect(paris).toEqual({
      slug: 'paris-morning',
      name: 'Paris morning',
      type: 'cron',
      enabled: true,
      session_mode: 'reuse',
      session_id: null,
      cron: '0 0 9 * * 1-5',
      run_at: null,
      timezone: 'Europe/Paris',
      agent: 'default',
      model: null,
      last_fired_at: null,
      next_fire_at: expect.any(String),
    });
    // 09:00 in Paris is 07:00 or 08:00 UTC, on a weekday.
    const next = new Date(paris.next_fire_at);
    expect([7, 8]).toContain(next.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
    expect(listing.triggers[2]).toMatchObject({ slug: 'gh', type: 'webhook', cron: null, timezone: null, next_fire_at: null });
    expect(listing.triggers[3]).toMatchObject({ slug: 'off', enabled: false, next_fire_at: null, last_fired_at: null });
    expect(listing.errors).toEqual([
      { index: 2, slug: 'bad-zone', message: expect.stringContaining('timezone "Mars/Olympus_Mons" is not an IANA time zone name') },
      { index: 5, slug: 'Bad Slug', message: expect.stringContaining('slug "Bad Slug" must be') },
    ]);
    expect(listing.errors[1].message).toContain('a webhook trigger needs secret_env');
    // The CLI's listing gives a webhook trigger's schedule as the URL its sender needs.
    const listed = captureDeps({ env: adminCliEnv(svc) });
    await runTriggerLs({ project: project.id }, listed);
    expect(listed.out()).toContain(`gh\twebhook\tPOST ${svc.url}/v1/webhooks/projects/${project.id}/gh\tfresh\tyes\t-\t`);
    // The entries that could not be read go to stderr, each naming its entry; the good ones stay listed on stdout.
    expect(listed.err()).toBe(`error: ${listing.errors[0].message}\nerror: ${listing.errors[1].message}\n`);
    expect(listed.err()).toMatch(/^error: trigger "bad-zone" \(entry 3\): timezone "Mars\/Olympus_Mons"/);
    // A trigger that has fired lists when, beside its next fire.
    const everySecond = listed.out().split('\n').find((line) => line.startsWith('every-second\t'))?.split('\t');
    expect(everySecond?.slice(0, 5)).toEqual(['every-second', 'cron', '* * * * * *', 'fresh', 'yes']);
    expect(everySecond?.[5]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(everySecond?.[6]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    // Firing an entry that could not be read says why it is not a trigger, not that it is missing.
    const unreadable = await svc.request('POST', `/v1/projects/${project.id}/triggers/bad-zone/fire`, {});
    expect(unreadable.status).toBe(404);
    expect(unreadable.body.error).toBe(
      `The entry for trigger "bad-zone" in svc.yaml on main could not be read, so it is not a trigger yet: ${listing.errors[0].message}. Fix it on a branch and merge it.`,
    );
    const missing = await svc.request('POST', `/v1/projects/${project.id}/triggers/nowhere/fire`, {});
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/^No trigger "nowhere" in the manifest on main of project .*; svc trigger ls lists them\.$/);

    const fires = await until(
      'every-second has fired three times',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers/every-second/fires`)).body.fires,
      (list: Array<{ status: string; fired_at: string; session_id: string | null }>) => list.length >= 3 && list.some((fire) => fire.status === 'queued'),
    );
    // Newest first, one per second, none twice; the first took the one slot, the rest wait for it.
    const seconds = fires.map((fire: { fired_at: string }) => fire.fired_at.slice(0, 19));
    expect(new Set(seconds).size).toBe(seconds.length);
    expect([...seconds].sort().reverse()).toEqual(seconds);
    const oldest = fires.at(-1)!;
    expect(oldest).toMatchObject({ source: 'cron', status: 'fired', session_id: expect.any(String), reason: null });
    expect(fires.find((fire: { status: string }) => fire.status === 'queued')).toMatchObject({ source: 'cron', session_id: expect.any(String), reason: expect.stringMatching(/earlier fire|its limit \(SVC_MAX_SESSIONS\)/) });
    expect(fires.filter((fire: { status: string }) => fire.status === 'fired' && fire !== oldest).every((fire: { session_id: string | null }) => fire.session_id === null)).toBe(true);
    const session = (await svc.request('GET', `/v1/projects/${project.id}/sessions/${oldest.session_id}`)).body.session;
    expect(session).toMatchObject({ trigger_slug: 'every-second', created_by: expect.any(String) });

    // The CLI lists as many of the newest fires as --limit asks for, and refuses a limit the API would not take.
    const newestTwo = await runCli(['trigger', 'fires', 'every-second', '--project', project.id, '--limit', '2', '--json'], { env: adminCliEnv(svc) });
    const listedTwo = JSON.parse(newestTwo.stdout) as Array<{ id: string; fired_at: string }>;
    expect(newestTwo).toMatchObject({ code: 0, stderr: `Older fires are not listed; the next page: svc trigger fires every-second --limit 2 --before ${listedTwo[1]!.id} --project ${project.id} --json\n` });
    expect(listedTwo).toHaveLength(2);
    expect(listedTwo[0]!.fired_at > listedTwo[1]!.fired_at).toBe(true);
    expect(listedTwo[1]!.fired_at >= fires[1]!.fired_at).toBe(true);
    const badLimit = await runCli(['trigger', 'fires', 'every-second', '--project', project.id, '--limit', '5000'], { env: adminCliEnv(svc) });
    expect(badLimit).toMatchObject({ code: 2, stdout: '' });
    expect(badLimit.stderr).toContain('--limit must be an integer from 1 to 1000.');
    expect(badLimit.stderr).toContain('(run svc trigger fires --help for usage)');

    // enabled: false never fires.
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers/off/fires`)).body.fires).toEqual([]);

    // A merge moves main: the set is read again; a past run_at fires once at once, then stays dormant.
    await mergeFiles(svc, project, {
      'svc.yaml': `
triggers:
  - slug: once
    type: cron
    run_at: "2020-01-01T00:00:00Z"
    prompt: "once {{ cron.schedule }}"
`,
    });
    const afterMerge = await until(
      'the one-off fired',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body,
      (body) => body.triggers.length === 1 && body.triggers[0].last_fired_at !== null,
    );
    expect(afterMerge.errors).toEqual([]);
    expect(afterMerge.triggers[0]).toMatchObject({ slug: 'once', run_at: '2020-01-01T00:00:00.000Z', cron: null, next_fire_at: null });
    const onceFires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/once/fires`)).body.fires;
    expect(onceFires).toHaveLength(1);
    // The removed trigger's fires stay listed.
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers/every-second/fires`)).body.fires.length).toBeGreaterThanOrEqual(3);

    // The CLI: a table when piped, the listing with --json, the fires of a trigger.
    const deps = captureDeps({ env: adminCliEnv(svc) });
    await runTriggerLs({ project: project.id }, deps);
    expect(deps.out()).toContain('once\tcron\tonce at 2020-01-01T00:00:00.000Z\tfresh\tyes\t-\t');
    const json = captureDeps({ env: adminCliEnv(svc) });
    await runTriggerLs({ project: project.id, json: true }, json);
    expect(JSON.parse(json.out())).toMatchObject({ triggers: [{ slug: 'once' }], errors: [], manifest: { path: 'svc.yaml' } });
    const firesOut = captureDeps({ env: adminCliEnv(svc) });
    await runTriggerFires('once', { project: project.id, json: true }, firesOut);
    expect(JSON.parse(firesOut.out())).toEqual(onceFires);
  });

  it('keeps the next fire of an entry an edit left alone or only reworded, plans a rescheduled one again, and lists them in the new order', async () => {
    const yearly = (slug: string, name: string, cron = '0 0 0 1 1 *') => `  - slug: ${slug}\n    name: ${name}\n    type: cron\n    cron: "${cron}"\n    prompt: "p"\n`;
    const project = await projectWithFiles(svc, `Edits ${Date.now()}`, { 'svc.yaml': `triggers:\n${yearly('kept', 'k')}${yearly('reworded', 'before')}${yearly('rescheduled', 'r')}${yearly('removed', 'x')}` });
    const before = await until(
      'the set is read',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body,
      (body) => body.triggers?.length === 4,
    );
    const nextOf = (listing: { triggers: Array<{ slug: string; next_fire_at: string }> }, slug: string) => listing.triggers.find((trigger) => trigger.slug === slug)?.next_fire_at;
    await mergeFiles(svc, project, { 'svc.yaml': `triggers:\n${yearly('added', 'a')}${yearly('rescheduled', 'r', '0 0 0 1 6 *')}${yearly('reworded', 'after')}${yearly('kept', 'k')}` });
    const after = await until(
      'the edit is read',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body,
      (body) => body.triggers?.[0]?.slug === 'added',
    );
    expect(after.triggers.map((trigger: { slug: string }) => trigger.slug)).toEqual(['added', 'rescheduled', 'reworded', 'kept']);
    expect(nextOf(after, 'kept')).toBe(nextOf(before, 'kept'));
    expect(nextOf(after, 'reworded')).toBe(nextOf(before, 'reworded'));
    expect(new Date(nextOf(after, 'rescheduled')!).getUTCMonth()).toBe(5);
    expect(after.errors).toEqual([]);
    expect(after.triggers.map((trigger: { name: string }) => trigger.name)).toEqual(['a', 'r', 'after', 'k']);
  });

  it('lists a project without a manifest as empty, and the errors of a manifest that cannot be read', async () => {
    const empty = await projectWithFiles(svc, `No manifest ${Date.now()}`, {});
    expect((await svc.request('GET', `/v1/projects/${empty.id}/triggers`)).body).toEqual({ triggers: [], errors: [], manifest: { path: null, commit: expect.any(String) } });
    const broken = await projectWithFiles(svc, `Broken ${Date.now()}`, { 'svc.toml': '[triggers]\nslug = "a"\n' });
    const listing = (await svc.request('GET', `/v1/projects/${broken.id}/triggers`)).body;
    expect(listing.triggers).toEqual([]);
    expect(listing.errors).toEqual([{ index: null, slug: null, message: expect.stringContaining('write [[triggers]] (double brackets)') }]);
    expect((await svc.request('GET', `/v1/projects/${broken.id}/triggers/nope/fires`)).status).toBe(404);
  });

  it("reads the set of the new default branch as soon as the project's default branch is changed", async () => {
    const hook = (slug: string) => `triggers:\n  - slug: ${slug}\n    type: webhook\n    secret_env: NOT_SET_YET\n    prompt: x\n`;
    const project = await projectWithFiles(svc, `Branch change ${Date.now()}`, { 'svc.yaml': hook('on-main') });
    // The receiver reads the stored set, not the repository: 409 (secret not set) for a trigger in it, 404 otherwise.
    const deliver = async (slug: string) => (await svc.request('POST', `/v1/webhooks/projects/${project.id}/${slug}`, { token: null, rawBody: '{}', headers: { 'content-type': 'application/json' } })).status;
    await until('main\'s set is read', () => deliver('on-main'), (status) => status === 409);
    git(['checkout', '-q', '-B', 'release'], { cwd: project.work });
    fs.writeFileSync(path.join(project.work, 'svc.yaml'), hook('on-release'));
    commitAll(project.work, 'Release triggers');
    await gitAsync(['push', '-q', pushUrl(svc, project), 'HEAD:release'], { cwd: project.work });
    expect(await deliver('on-release')).toBe(404);

    const changed = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'release' } });
    expect(changed.status).toBe(200);
    // Nothing lists the triggers meanwhile (a listing reads the branch itself): the change alone brings the new set.
    await until('release\'s set is read', () => deliver('on-release'), (status) => status === 409, 10_000);
    expect(await deliver('on-main')).toBe(404);
  });

  it("adds a person's message after the prompt when the prompt has no place for it; a queued fire names its session to come", async () => {
    // A server of its own: its one slot stays taken through this test, and the other tests' fires need it free.
    const own = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_TRIGGER_SCHEDULER_INTERVAL_MS: '60000' } });
    onTestFinished(() => own.close());
    const project = await projectWithFiles(own, `Messages ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: review\n    type: webhook\n    secret_env: S\n    prompt: Review what merged.\n  - slug: asks\n    type: webhook\n    secret_env: S\n    prompt: "Asked: {{ message.text }}"\n',
    });
    const promptsOf = async (slug: string) => {
      const page = await own.request('GET', `/projects/${project.slug}/triggers/${slug}/fires`);
      expect(page.status).toBe(200);
      return [...page.text.matchAll(/<pre class="tool-io">([^<]*)<\/pre>/g)].map((match) => match[1]);
    };
    // A session without a prompt holds the one slot (it has no first prompt to wait for, so nothing ends it): every fire below waits.
    expect((await own.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).status).toBe(201);
    for (const body of [{ message: 'also check billing' }, {}]) expect((await own.request('POST', `/v1/projects/${project.id}/triggers/review/fire`, { body })).status).toBe(202);
    // It waits too, for a session it names.
    const cli = captureDeps({ env: adminCliEnv(own) });
    await runTriggerFire('asks', { project: project.id, message: 'also check billing' }, cli);
    const sessionId = cli.out().trim();
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(cli.err()).toMatch(/^Queued: .+\nIts session starts when a slot frees; svc trigger fires asks shows when\.\n$/);
    expect(await promptsOf('review')).toEqual(['Review what merged.', 'Review what merged.\n\nalso check billing']);
    expect(await promptsOf('asks')).toEqual(['Asked: also check billing']);
    // The page names that session without linking to it: it does not exist until the fire starts.
    const page = (await own.request('GET', `/projects/${project.slug}/triggers/asks/fires`)).text;
    expect(page).toContain(`<span class="row-title">manual · <span>session <code>${sessionId.slice(0, 8)}</code> when it starts</span></span>`);
    expect(page).not.toContain(`/sessions/${sessionId}`);
  });

  it('writes no set for a project deleted while its manifest was read, and does not fail', async () => {
    const project = await projectWithFiles(svc, `Deleted ${Date.now()}`, { 'svc.yaml': 'triggers:\n  - slug: hook\n    type: webhook\n    secret_env: HOOK\n    prompt: x\n' });
    const { db } = svc.server.services;
    const row = await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
    // Its row goes between the read of its repository and the write of its set (its files stay for the read).
    await db.deleteFrom('projects').where('id', '=', project.id).execute();
    await expect(syncProjectTriggers(svc.server.services, row)).resolves.toEqual({ changed: false });
    expect(await db.selectFrom('trigger_manifests').select('project_id').where('project_id', '=', project.id).execute()).toEqual([]);
  });
});
