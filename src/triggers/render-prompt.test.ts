import { describe, expect, it } from 'vitest';
import { cronView, manualView, renderPrompt, templateShows, webhookView } from './render-prompt.js';

describe('prompt templates (contract §7)', () => {
  it('renders dotted paths without HTML escaping, missing as empty, objects and arrays as JSON', () => {
    const view = { body: { title: 'Fix <b> & "quotes"', labels: ['a', 'b'], user: { login: 'octo' } } };
    expect(renderPrompt('{{ body.title }}|{{ body.labels }}|{{{ body.user }}}|{{ body.nope.deeper }}|{{&body.user.login}}', view)).toBe(
      'Fix <b> & "quotes"|["a","b"]|{"login":"octo"}||octo',
    );
  });

  it('gives each fire kind exactly its variables', () => {
    const trigger = { slug: 'nightly', type: 'cron' as const };
    expect(cronView(trigger, { schedule: '0 0 3 * * *', timezone: 'UTC', firedAt: 'T1', lastFiredAt: null })).toEqual({
      trigger: { slug: 'nightly', type: 'cron', kind: 'git' },
      cron: { schedule: '0 0 3 * * *', timezone: 'UTC', fired_at: 'T1', last_fired_at: '' },
    });
    expect(webhookView({ slug: 'gh', type: 'webhook' }, { firedAt: 'T2', rawBody: Buffer.from('not json'), headers: { 'content-type': 'text/plain', 'user-agent': 'GitHub-Hookshot/1', 'x-forwarded-for': '10.0.0.1' } })).toEqual({
      trigger: { slug: 'gh', type: 'webhook', kind: 'git' },
      fired_at: 'T2',
      body: { raw: 'not json' },
      headers: { content_type: 'text/plain', user_agent: 'GitHub-Hookshot/1', forwarded_for: '10.0.0.1' },
    });
    expect(manualView({ slug: 'gh', type: 'webhook' }, { firedAt: 'T3', actor: 'u1', message: 'hi', messageSource: 'api' })).toEqual({
      trigger: { slug: 'gh', type: 'webhook', kind: 'git' },
      fired_at: 'T3',
      source: 'manual',
      actor: 'u1',
      message: { text: 'hi', source: 'api' },
    });
  });

  it('survives a body nested deeper than the stack', () => {
    const deep = Buffer.from('['.repeat(200_000) + ']'.repeat(200_000));
    const view = webhookView({ slug: 'gh', type: 'webhook' }, { firedAt: 'T', rawBody: deep, headers: {} });
    expect(renderPrompt('before {{ body }} after', view)).toBe('before  after');
  });

  it('tells whether a template shows a variable, by name, in an object it prints, or inside a section', () => {
    expect(templateShows('Review {{ message.text }}', 'message.text')).toBe(true);
    expect(templateShows('Review {{{message.text}}}', 'message.text')).toBe(true);
    expect(templateShows('Asked: {{ message }}', 'message.text')).toBe(true);
    expect(templateShows('{{#message}}Asked: {{ text }}{{/message}}', 'message.text')).toBe(true);
    expect(templateShows('Review what merged since {{ cron.last_fired_at }}', 'message.text')).toBe(false);
    expect(templateShows('{{ message.source }} {{ messages.text }}', 'message.text')).toBe(false);
    expect(templateShows('{{^message}}{{ text }}{{/message}}', 'message.text')).toBe(false);
  });
});
