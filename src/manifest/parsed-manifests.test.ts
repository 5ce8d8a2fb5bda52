import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.js';
import { ParsedManifests } from './parsed-manifests.js';

const text = (slug: string) => `triggers:\n  - slug: ${slug}\n    type: cron\n    cron: "0 * * * * *"\n    prompt: hello\n`;

describe('recently parsed manifests', () => {
  it('parses a text once and hands out copies that a caller may change without changing the next', () => {
    const cache = new ParsedManifests();
    let parses = 0;
    const read = (slug: string) =>
      cache.get('svc.yaml', text(slug), () => {
        parses += 1;
        return parseManifest({ filename: 'svc.yaml', text: text(slug) });
      });
    const first = read('nightly');
    expect(first.triggers.map((trigger) => trigger.slug)).toEqual(['nightly']);
    first.triggers[0]!.prompt = 'changed by a caller';
    first.triggers.push({ ...first.triggers[0]!, slug: 'added' });
    const second = read('nightly');
    expect(parses).toBe(1);
    expect(second).toEqual(parseManifest({ filename: 'svc.yaml', text: text('nightly') }));
  });

  it('keeps the eight most recently read and parses an older one again', () => {
    const cache = new ParsedManifests();
    const parsed: string[] = [];
    const read = (slug: string) => cache.get('svc.yaml', text(slug), () => (parsed.push(slug), parseManifest({ filename: 'svc.yaml', text: text(slug) })));
    for (let index = 0; index < 9; index += 1) read(`t${index}`);
    read('t8');
    read('t1');
    expect(parsed).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
    read('t0');
    expect(parsed.at(-1)).toBe('t0');
    expect(parsed).toHaveLength(10);
  });

  it('tells a svc.yml from a svc.yaml of the same text', () => {
    const cache = new ParsedManifests();
    expect(cache.get('svc.yml', text('a'), () => parseManifest({ filename: 'svc.yml', text: text('a') })).filename).toBe('svc.yml');
    expect(cache.get('svc.yaml', text('a'), () => parseManifest({ filename: 'svc.yaml', text: text('a') })).filename).toBe('svc.yaml');
  });
});
