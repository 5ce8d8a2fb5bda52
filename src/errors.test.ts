import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog } from './errors.js';

describe('error catalog', () => {
  it('is documented row for row in the README error table', () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const [code, entry] of Object.entries(errorCatalog)) {
      const shown = 'reasonOf' in entry ? `\`${entry.reasonOf}\`, reason \`${code}\`` : `\`${code}\``;
      expect(readme).toContain(`| ${entry.status} | ${shown} | ${entry.when} |`);
    }
    const documented = [...readme.matchAll(/^\| (\d{3}) \| `([A-Z_]+)`(?:, reason `([A-Z_]+)`)? \|/gm)].map((m) => m[3] ?? m[2]);
    expect(documented.sort()).toEqual(Object.keys(errorCatalog).sort());
  });
});

describe('the sandbox daemon', () => {
  it('answers only codes of the catalog, each with its status', () => {
    const daemonDir = new URL('./daemon/', import.meta.url);
    const answered: Array<[number, string]> = [];
    for (const name of fs.readdirSync(daemonDir).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))) {
      const source = fs.readFileSync(new URL(name, daemonDir), 'utf8');
      // `new HttpProblem(503, '…', 'CODE')`, `refuse(503, 'Text', '…', 'CODE')`, `jsonError(response, 502, `…`, 'CODE')`.
      for (const match of source.matchAll(/\b([1-5]\d\d),[^\n]*?'([A-Z][A-Z_]{3,})'\)/g)) answered.push([Number(match[1]), match[2]!]);
    }
    expect(answered.length).toBeGreaterThan(10);
    const catalog: Record<string, { status: number }> = errorCatalog;
    for (const [status, code] of answered) expect({ code, status: catalog[code]?.status }).toEqual({ code, status });
  });
});
