/**
 * A project's settings: secrets (names only; set, replace, delete), project tokens (created with chosen
 * capabilities and shown once, with a copy button; revoked) and members. Changing them needs project.admin,
 * as in the API; others see the members and are told whom to ask.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CAPABILITIES, isCapability, type Capability } from '../../accounts/capabilities.js';
import { deleteSecret, listSecrets, putSecret } from '../../accounts/secrets.js';
import { createProjectToken, listProjectTokens, revokeProjectToken } from '../../accounts/tokens.js';
import { listProjectMembers, putProjectMember, removeProjectMember } from '../../accounts/users.js';
import type { Services } from '../../context.js';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { timeElement } from '../../dashboards/render/render-dashboard.js';
import { AppError } from '../../errors.js';
import { expectedEnvironment, type ExpectedEnvironment } from '../../sessions/expected-environment.js';
import { sendPage } from '../send-page.js';
import { csrfField, requireFormToken } from './csrf.js';
import { buttonForm, can, formField, formValues, loadProjectView, pageActor, projectPath, renderActionError, renderProjectPage, type ProjectView } from './project-page.js';

type Form = 'secret-set' | 'secret-delete' | 'token-create' | 'token-revoke' | 'member-put' | 'member-remove';

interface Outcome {
  form: Form;
  error?: AppError;
  /** A token just created: shown this once. */
  newToken?: { name: string; token: string };
  fields?: Record<string, string>;
}

const TOKEN_NAME_MAX = 120;
const SECRET_VALUE_MAX = 65_536;

function errorFor(outcome: Outcome | undefined, ...forms: Form[]): string {
  return outcome?.error && forms.includes(outcome.form) ? renderActionError(outcome.error.message) : '';
}

function settingsPath(view: ProjectView, rest = ''): string {
  return projectPath(view.project, `/settings${rest}`);
}

/** The manifest's `env` entries beside whether each is set: what the project's sessions expect to find. */
function renderExpected(expected: ExpectedEnvironment, setNames: ReadonlySet<string>): string {
  if (expected.entries.length === 0) return '';
  const rows = expected.entries
    .map(
      (entry) =>
        `<tr><td><code>${escapeHtml(entry.name)}</code></td><td>${entry.required ? 'required' : 'optional'}</td><td>${escapeHtml(entry.description ?? '')}</td>` +
        `<td>${setNames.has(entry.name) ? 'set' : entry.required ? '<strong>not set</strong>' : 'not set'}</td></tr>`,
    )
    .join('');
  return (
    `<h3 class="subhead">Expected by ${escapeHtml(expected.manifestPath ?? 'the manifest')}</h3>` +
    `<table class="simple expected-env"><thead><tr><th scope="col">Name</th><th scope="col">Needed</th><th scope="col">What it is</th><th scope="col">Value</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

async function renderSecrets(view: ProjectView, outcome: Outcome | undefined): Promise<string> {
  const [secrets, expected] = await Promise.all([listSecrets(view.ctx, view.project.id), expectedEnvironment(view.ctx, view.project)]);
  const rows = secrets
    .map(
      (secret) =>
        `<tr><td><code>${escapeHtml(secret.name)}</code></td><td>${timeElement(secret.updated_at)}</td>` +
        `<td class="cell-actions">${buttonForm(view, settingsPath(view, '/secrets/delete'), 'Delete', { className: 'btn-danger', fields: { name: secret.name }, confirm: `Delete the secret ${secret.name}?` })}</td></tr>`,
    )
    .join('');
  const table = secrets.length > 0 ? `<table class="simple"><thead><tr><th scope="col">Name</th><th scope="col">Updated</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="muted">No secrets yet.</p>';
  const name = outcome?.form === 'secret-set' ? (outcome.fields?.name ?? '') : '';
  return (
    `<section class="panel" id="secrets"><h2 class="panel-title">Secrets</h2><p class="hint">Sessions get each secret as an environment variable. Values are never shown again; setting a name that exists replaces its value.</p>` +
    `${errorFor(outcome, 'secret-delete')}${table}${renderExpected(expected, new Set(secrets.map((secret) => secret.name)))}` +
    `<form method="post" action="${escapeAttr(settingsPath(view, '/secrets'))}" class="stack-form">${csrfField(view.csrf)}${errorFor(outcome, 'secret-set')}` +
    `<div class="form-grid"><div class="form-row"><label for="secret-name">Name</label><input class="input" id="secret-name" name="name" required pattern="[A-Z_][A-Z0-9_]*" autocapitalize="characters" spellcheck="false" placeholder="GIT_TOKEN" value="${escapeAttr(name)}"></div>` +
    `<div class="form-row"><label for="secret-value">Value</label><input class="input" id="secret-value" name="value" type="password" required autocomplete="off"></div></div>` +
    `<button class="btn" type="submit">Set secret</button></form></section>`
  );
}

async function renderTokens(view: ProjectView, outcome: Outcome | undefined): Promise<string> {
  const tokens = await listProjectTokens(view.ctx, view.project.id);
  const shown = outcome?.newToken
    ? `<div class="new-token t-positive" role="status"><p><strong>Token ${escapeHtml(outcome.newToken.name)} created.</strong> Copy it now: it is shown only this once.</p>` +
      `<div class="code-block token-value"><pre><code>${escapeHtml(outcome.newToken.token)}</code></pre><button class="copy-btn" type="button" data-copy hidden>Copy</button></div></div>`
    : '';
  const rows = tokens
    .map(
      (token) =>
        `<tr><td>${escapeHtml(token.name)}</td><td>${token.capabilities.map((c) => `<code>${escapeHtml(c)}</code>`).join(' ')}</td><td>${timeElement(token.created_at)}</td>` +
        `<td class="cell-actions">${buttonForm(view, settingsPath(view, '/tokens/revoke'), 'Revoke', { className: 'btn-danger', fields: { id: token.id }, confirm: `Revoke the token ${token.name}? Whatever uses it stops working.` })}</td></tr>`,
    )
    .join('');
  const table = tokens.length > 0 ? `<table class="simple"><thead><tr><th scope="col">Name</th><th scope="col">Capabilities</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="muted">No project tokens.</p>';
  const chosen = new Set((outcome?.form === 'token-create' ? (outcome.fields?.capabilities ?? 'project.read') : 'project.read').split(','));
  const boxes = CAPABILITIES.filter((capability) => view.capabilities.has(capability))
    .map((capability) => `<label class="check"><input type="checkbox" name="capabilities" value="${escapeAttr(capability)}"${chosen.has(capability) ? ' checked' : ''}> <code>${escapeHtml(capability)}</code></label>`)
    .join('');
  return (
    `<section class="panel" id="tokens"><h2 class="panel-title">Project tokens</h2>${shown}${errorFor(outcome, 'token-revoke')}${table}` +
    `<form method="post" action="${escapeAttr(settingsPath(view, '/tokens'))}" class="stack-form">${csrfField(view.csrf)}${errorFor(outcome, 'token-create')}` +
    `<div class="form-row"><label for="token-name">Name</label><input class="input" id="token-name" name="name" required maxlength="${TOKEN_NAME_MAX}" value="${escapeAttr(outcome?.form === 'token-create' && outcome.error ? (outcome.fields?.name ?? '') : '')}"></div>` +
    `<fieldset class="checks"><legend>Capabilities</legend>${boxes}</fieldset><button class="btn" type="submit">Create token</button></form></section>`
  );
}

async function renderMembers(view: ProjectView, outcome: Outcome | undefined, admin: boolean): Promise<string> {
  const members = await listProjectMembers(view.ctx, view.project.id);
  const rows = members
    .map(
      (member) =>
        `<tr><td>${escapeHtml(member.name)}</td><td>${escapeHtml(member.role)}</td><td>${timeElement(member.created_at)}</td>` +
        `<td class="cell-actions">${admin ? buttonForm(view, settingsPath(view, '/members/remove'), 'Remove', { className: 'btn-danger', fields: { user: member.user_id }, confirm: `Remove ${member.name} from the project?` }) : ''}</td></tr>`,
    )
    .join('');
  const table = members.length > 0 ? `<table class="simple"><thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="muted">No members: only administrators use this project.</p>';
  const form = admin
    ? `<form method="post" action="${escapeAttr(settingsPath(view, '/members'))}" class="stack-form">${csrfField(view.csrf)}${errorFor(outcome, 'member-put')}` +
      `<div class="form-grid"><div class="form-row"><label for="member-user">User name</label><input class="input" id="member-user" name="user" required autocapitalize="none" spellcheck="false" value="${escapeAttr(outcome?.form === 'member-put' ? (outcome.fields?.user ?? '') : '')}"></div>` +
      `<div class="form-row"><label for="member-role">Role</label><select class="input" id="member-role" name="role"><option value="member">member</option><option value="admin">admin</option></select></div></div>` +
      `<button class="btn" type="submit">Add or change member</button></form>`
    : '';
  return `<section class="panel" id="members"><h2 class="panel-title">Members</h2>${errorFor(outcome, 'member-remove')}${table}${form}</section>`;
}

async function renderSettings(view: ProjectView, outcome?: Outcome): Promise<string> {
  const admin = can(view, 'project.admin') && view.ctx.actor.kind === 'user';
  const head = `<div class="page-head"><div><h1>Settings</h1></div></div>`;
  if (!admin) {
    const refused = outcome?.error ? renderActionError(outcome.error.message) : '';
    return head + refused + `<p class="notice">Only admins of ${escapeHtml(view.project.name)} can change its secrets, tokens and members; ask one of them.</p>` + (await renderMembers(view, outcome, false));
  }
  return head + (await renderSecrets(view, outcome)) + (await renderTokens(view, outcome)) + (await renderMembers(view, outcome, true));
}

function capabilitiesFrom(body: unknown): Capability[] {
  const values = formValues(body, 'capabilities');
  const unknown = values.filter((value) => !isCapability(value));
  if (unknown.length > 0) throw new AppError('VALIDATION_FAILED', `${unknown.map((value) => JSON.stringify(value)).join(', ')} is not a capability; choose from the list.`);
  if (values.length === 0) throw new AppError('VALIDATION_FAILED', 'Choose at least one capability for the token.');
  return values as Capability[];
}

const ROUTES: Record<string, Form> = {
  '/secrets': 'secret-set',
  '/secrets/delete': 'secret-delete',
  '/tokens': 'token-create',
  '/tokens/revoke': 'token-revoke',
  '/members': 'member-put',
  '/members/remove': 'member-remove',
};

const ANCHORS: Record<Form, string> = { 'secret-set': 'secrets', 'secret-delete': 'secrets', 'token-create': 'tokens', 'token-revoke': 'tokens', 'member-put': 'members', 'member-remove': 'members' };

async function act(view: ProjectView, form: Form, body: unknown): Promise<Outcome> {
  const field = (name: string) => formField(body, name).trim();
  const projectId = view.project.id;
  switch (form) {
    case 'secret-set': {
      const value = formField(body, 'value');
      if (value === '') throw new AppError('VALIDATION_FAILED', 'Enter the secret’s value.');
      if (value.length > SECRET_VALUE_MAX) throw new AppError('VALIDATION_FAILED', `The value is over ${SECRET_VALUE_MAX} characters; a secret holds at most that.`);
      await putSecret(view.ctx, projectId, field('name'), value);
      return { form };
    }
    case 'secret-delete':
      await deleteSecret(view.ctx, projectId, field('name'));
      return { form };
    case 'token-create': {
      const name = field('name');
      if (name === '' || name.length > TOKEN_NAME_MAX) throw new AppError('VALIDATION_FAILED', `Give the token a name of 1 to ${TOKEN_NAME_MAX} characters, saying what uses it.`);
      const { token } = await createProjectToken(view.ctx, projectId, { name, capabilities: capabilitiesFrom(body) });
      return { form, newToken: { name, token } };
    }
    case 'token-revoke':
      await revokeProjectToken(view.ctx, projectId, field('id'));
      return { form };
    case 'member-put': {
      const role = field('role');
      if (role !== 'member' && role !== 'admin') throw new AppError('VALIDATION_FAILED', 'Choose the role member or admin.');
      await putProjectMember(view.ctx, projectId, field('user'), role);
      return { form };
    }
    case 'member-remove':
      await removeProjectMember(view.ctx, projectId, field('user'));
      return { form };
  }
}

export function settingsPageRoutes(app: FastifyInstance, services: Services): void {
  const show = async (reply: FastifyReply, view: ProjectView, status: number, outcome?: Outcome) =>
    sendPage(reply, status, renderProjectPage(view, { title: 'Settings', tab: 'settings', body: await renderSettings(view, outcome), crumbs: [{ label: 'Settings' }] }));

  app.get<{ Params: { slug: string } }>('/projects/:slug/settings', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    return show(reply, await loadProjectView(services, request, ctx, request.params.slug), 200);
  });

  for (const [path, form] of Object.entries(ROUTES)) {
    app.post<{ Params: { slug: string } }>(`/projects/:slug/settings${path}`, { schema: { hide: true } }, async (request, reply) => {
      const ctx = await pageActor(services, request, reply);
      if (!ctx) return reply;
      requireFormToken(services, request);
      const view = await loadProjectView(services, request, ctx, request.params.slug);
      let outcome: Outcome;
      try {
        outcome = await act(view, form, request.body);
      } catch (error) {
        if (!(error instanceof AppError) || error.code === 'INTERNAL') throw error;
        const fields = { name: formField(request.body, 'name'), user: formField(request.body, 'user'), capabilities: formValues(request.body, 'capabilities').join(',') };
        return show(reply, view, error.status, { form, error, fields });
      }
      // A new token is shown on the answer itself, never stored to be shown again; the rest redirect back.
      if (outcome.newToken) return show(reply, view, 201, outcome);
      return reply.header('cache-control', 'no-store').redirect(`${settingsPath(view)}#${ANCHORS[form]}`, 303);
    });
  }
}
