import { describe, expect, it } from 'vitest';
import { schemaValidatorCompiler } from './validator.js';

const compile = (httpPart: string) =>
  schemaValidatorCompiler({ schema: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }, method: 'POST', url: '/', httpPart }) as (value: unknown) => boolean;

describe('the route schema validator', () => {
  it('takes format uuid as the bare 8-4-4-4-12 hex identifier only, in bodies, paths and queries', () => {
    for (const part of ['body', 'params', 'querystring']) {
      const valid = compile(part);
      expect(valid({ id: '3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c' }), part).toBe(true);
      expect(valid({ id: '3F2B8C1E-9D4A-4E6B-8A7C-1D2E3F4A5B6C' }), part).toBe(true);
      expect(valid({ id: 'urn:uuid:3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c' }), part).toBe(false);
      expect(valid({ id: '{3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c}' }), part).toBe(false);
      expect(valid({ id: '3f2b8c1e9d4a4e6b8a7c1d2e3f4a5b6c' }), part).toBe(false);
    }
  });
});
