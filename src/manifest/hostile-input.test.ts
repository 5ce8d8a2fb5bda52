/**
 * Manifests come from branches anyone with push access writes, and the merge gate reads them inside a
 * request: nothing here may hang, blow the stack or print to the process log.
 */
import { describe, expect, test } from 'vitest';
import { MAX_MANIFEST_BYTES, parseManifest } from './index.js';

const yaml = (text: string) => parseManifest({ filename: 'svc.yaml', text });
const toml = (text: string) => parseManifest({ filename: 'svc.toml', text });

/** Wall-clock time of `run` in milliseconds. */
function timed<T>(run: () => T): { result: T; milliseconds: number } {
  const started = performance.now();
  const result = run();
  return { result, milliseconds: performance.now() - started };
}

describe('hostile and huge input', () => {
  test('10,000 valid triggers parse in a few seconds', () => {
    let text = 'triggers:\n';
    for (let index = 0; index < 10_000; index++) {
      text += `- {slug: t${index}, type: cron, cron: "${index % 60} ${index % 60} * * * *", prompt: p}\n`;
    }
    expect(text.length).toBeLessThan(MAX_MANIFEST_BYTES);
    const { result, milliseconds } = timed(() => yaml(text));
    expect(result.issues).toEqual([]);
    expect(result.triggers).toHaveLength(10_000);
    expect(milliseconds).toBeLessThan(10_000);
  });

  test('10,000 bad triggers with distinct cron expressions give one error each, quickly', () => {
    let text = '';
    for (let index = 0; index < 10_000; index++) {
      // Day 30 of February: parses, never fires; the check must not search years ahead for each.
      text += `[[triggers]]\nslug="t${index}"\ntype="cron"\ncron="${index % 60} ${Math.floor(index / 60) % 60} 0 30 2 *"\nprompt="p"\n`;
    }
    const { result, milliseconds } = timed(() => toml(text));
    expect(result.triggers).toEqual([]);
    expect(result.errors).toHaveLength(10_000);
    expect(result.errors[9_999]).toMatchObject({ index: 9_999, slug: 't9999' });
    expect(result.errors[0]?.message).toContain('never fires');
    expect(milliseconds).toBeLessThan(10_000);
  });

  test('a manifest over the size cap is refused without being parsed', () => {
    const text = `triggers:\n${'# padding\n'.repeat(MAX_MANIFEST_BYTES / 10 + 1)}`;
    const { result, milliseconds } = timed(() => yaml(text));
    expect(result.issues).toEqual([{ path: '', message: 'svc.yaml is larger than 1024 KiB; a manifest this large is not read' }]);
    expect(result.errors).toEqual([{ index: null, slug: null, message: result.issues[0]?.message }]);
    expect(milliseconds).toBeLessThan(1_000);
  });

  test('the cap counts bytes, not characters', () => {
    const text = `# ${'é'.repeat(MAX_MANIFEST_BYTES / 2)}\n`;
    expect(text.length).toBeLessThan(MAX_MANIFEST_BYTES);
    expect(yaml(text).issues[0]?.message).toContain('larger than');
  });

  test('deeply nested YAML flow collections are an issue, not a crash', () => {
    const depth = 100_000;
    const { result, milliseconds } = timed(() => yaml(`triggers: ${'['.repeat(depth)}${']'.repeat(depth)}\n`));
    expect(result.issues.length).toBeGreaterThan(0);
    expect(result.issues[0]?.message).toMatch(/^svc\.yaml /);
    expect(milliseconds).toBeLessThan(10_000);
  });

  test('deeply nested YAML block mappings are read or refused, never crash', () => {
    let text = 'agents:\n';
    for (let depth = 1; depth < 2_000; depth++) text += `${' '.repeat(depth)}k:\n`;
    const result = yaml(text);
    expect(result.issues.length).toBeGreaterThan(0);
  });

  test('deeply nested TOML inline arrays are refused by depth', () => {
    const depth = 50_000;
    const result = toml(`x = ${'['.repeat(depth)}${']'.repeat(depth)}\n`);
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]?.message).toMatch(/^svc\.toml line 1, column \d+: .*nested/);
  });

  test('an alias bomb ("billion laughs") is refused', () => {
    const text = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'triggers: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]',
    ].join('\n');
    const { result, milliseconds } = timed(() => yaml(text));
    expect(result.issues).toEqual([
      { path: '', message: 'svc.yaml repeats aliases (*name) too often to expand; write the entries out.' },
    ]);
    expect(milliseconds).toBeLessThan(2_000);
  });

  test('thousands of unknown keys are summarized after the first few', () => {
    const keys = Array.from({ length: 5_000 }, (_, index) => `junk${index}: 1`).join('\n');
    const result = yaml(keys);
    expect(result.issues).toHaveLength(11);
    expect(result.issues[10]).toEqual({
      path: '',
      message: '4990 more unknown keys here; the known ones are version, triggers, agents, default_agent, runtime, sandbox, env',
    });
    const inTrigger = yaml(`triggers:\n  - slug: a\n${Array.from({ length: 500 }, (_, index) => `    junk${index}: 1`).join('\n')}\n`);
    expect(inTrigger.errors).toHaveLength(1);
    expect(inTrigger.issues.filter((issue) => issue.message.includes('is not a trigger field'))).toHaveLength(10);
    expect(inTrigger.issues.some((issue) => issue.message.includes('490 more fields that triggers do not have'))).toBe(true);
  });

  test('a mapping with a hundred thousand keys is checked for duplicates in one pass', () => {
    const keys = Array.from({ length: 100_000 }, (_, index) => `k${index}: 1`);
    keys.push('k5: 2');
    const { result, milliseconds } = timed(() => yaml(keys.join('\n')));
    expect(result.issues).toEqual([
      { path: '', message: 'svc.yaml line 100001, column 1: the key "k5" appears twice in the same mapping; keep one' },
    ]);
    expect(milliseconds).toBeLessThan(20_000);
  });

  test('a megabyte-long key or value is echoed only in part', () => {
    const long = 'x'.repeat(500_000);
    const result = yaml(`triggers:\n  - slug: ${long}\n    type: cron\n    cron: "${long}"\n    prompt: p\n    ${long}: 1\n`);
    for (const issue of result.issues) expect(issue.message.length).toBeLessThan(1_000);
    expect(result.errors[0]?.message.length).toBeLessThan(3_000);
  });

  test('keys named like Object.prototype members are unknown keys, not prototype pollution', () => {
    const result = yaml('__proto__: {polluted: true}\ntriggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt: p\n    constructor: 1\n    __proto__: {x: 1}\n');
    expect(result.issues.map((issue) => issue.path)).toEqual(['/__proto__', '/triggers/0/constructor', '/triggers/0/__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const fromToml = toml('[[triggers]]\nslug = "a"\ntype = "webhook"\nsecret_env = "S"\nprompt = "p"\n__proto__ = 1\n');
    expect(fromToml.issues.map((issue) => issue.path)).toEqual(['/triggers/0/__proto__']);
  });

  test('binary garbage and odd scalars produce issues, not exceptions', () => {
    const garbage = String.fromCharCode(...Array.from({ length: 2_000 }, (_, index) => (index * 7919) % 256));
    expect(() => yaml(garbage)).not.toThrow();
    expect(() => toml(garbage)).not.toThrow();
    expect(yaml('triggers: !!binary aGVsbG8=\n').issues.length).toBeGreaterThan(0);
    expect(yaml('triggers:\n  - .inf\n  - .nan\n  - null\n').errors).toHaveLength(3);
  });
});
