import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.js';
import { ParsedManifests } from './parsed-manifests.js';

const text = (slug: string) => `triggers:\n  - slug: ${slug}\n    type: cron\n    cron: "0 * * * * *"\n    prompt: hello\n`;

describe('recently parsed manifests', () => {
  it('parses a text once and hands out copies that a caller may change without changing the next', async () => {
    const cache = new ParsedManifests();
    let parses = 0;
    const read = (slug: string) =>
      cache.get('svc.yaml', text(slug), async () => {
        parses += 1;
        return parseManifest({ filename: 'svc.yaml', text: text(slug) });
      });
    const first = await read('nightly');
    expect(first.triggers.map((trigger) => trigger.slug)).toEqual(['nightly']);
    first.triggers[0]!.prompt = 'changed by a caller';
    first.triggers.push({ ...first.triggers[0]!, slug: 'added' });
    const second = await read('nightly');
    expect(parses).toBe(1);
    expect(second).toEqual(parseManifest({ filename: 'svc.yaml', text: text('nightly') }));
  });

  it('keeps the eight most recently read and parses an older one again', async () => {
    const cache = new ParsedManifests();
    const parsed: string[] = [];
    const read = (slug: string) => cache.get('svc.yaml', text(slug), async () => (parsed.push(slug), parseManifest({ filename: 'svc.yaml', text: text(slug) })));
    for (let index = 0; index < 9; index += 1) await read(`t${index}`);
    await read('t8');
    await read('t1');
    expect(parsed).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
    await read('t0');
    expect(parsed.at(-1)).toBe('t0');
    expect(parsed).toHaveLength(10);
  });

  it('tells a svc.yml from a svc.yaml of the same text', async () => {
    const cache = new ParsedManifests();
    expect((await cache.get('svc.yml', text('a'), async () => parseManifest({ filename: 'svc.yml', text: text('a') }))).filename).toBe('svc.yml');
    expect((await cache.get('svc.yaml', text('a'), async () => parseManifest({ filename: 'svc.yaml', text: text('a') }))).filename).toBe('svc.yaml');
  });

  it('gives callers that ask while a text is being parsed that one parse, and parses again after a parse failed', async () => {
    const cache = new ParsedManifests();
    let parses = 0;
    let finish: () => void = () => undefined;
    const slow = () => {
      parses += 1;
      return new Promise<ReturnType<typeof parseManifest>>((resolve) => (finish = () => resolve(parseManifest({ filename: 'svc.yaml', text: text('a') }))));
    };
    const together = [cache.get('svc.yaml', text('a'), slow), cache.get('svc.yaml', text('a'), slow)];
    finish();
    expect((await Promise.all(together)).map((manifest) => manifest.triggers[0]?.slug)).toEqual(['a', 'a']);
    expect(parses).toBe(1);

    await expect(cache.get('svc.yaml', text('b'), () => Promise.reject(new Error('the thread crashed')))).rejects.toThrow('the thread crashed');
    expect((await cache.get('svc.yaml', text('b'), async () => parseManifest({ filename: 'svc.yaml', text: text('b') }))).triggers[0]?.slug).toBe('b');
  });
});
