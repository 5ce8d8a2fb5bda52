import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { routeSchemaCompilers } from './route-schema-compilers.js';

const apps: Array<ReturnType<typeof Fastify>> = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function appWith(schema: Record<string, unknown>) {
  const compilers = routeSchemaCompilers();
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: compilers.buildSerializer } } });
  app.setValidatorCompiler(compilers.validatorCompiler);
  app.post('/items', { schema }, async (request) => ({ got: request.query, body: request.body, secret: 'left out by the response schema' }));
  apps.push(app);
  return { app, compilers };
}

describe('route schemas compiled on first use', () => {
  const schema = {
    querystring: { type: 'object', properties: { tag: { type: 'array', items: { type: 'integer' } } } },
    body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false },
    response: { 200: { type: 'object', properties: { got: { type: 'object', additionalProperties: true }, body: { type: 'object', additionalProperties: true } } } },
  };

  it('validates bodies, coerces query strings and serializes answers as when compiled at start-up', async () => {
    const { app } = appWith(schema);
    const bad = await app.inject({ method: 'POST', url: '/items', payload: { name: 3, extra: true } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/body/);
    const good = await app.inject({ method: 'POST', url: '/items?tag=7', payload: { name: 'a' } });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual({ got: { tag: [7] }, body: { name: 'a' } });
  });

  it('compiles what no request has when asked, and throws what a broken schema throws', async () => {
    const { app, compilers } = appWith({ body: { type: 'object', properties: { name: { type: 'no such type' } } } });
    await app.ready();
    expect(() => compilers.compileAll()).toThrow(/no such type|type must be/);
    const fine = appWith(schema);
    await fine.app.ready();
    expect(() => fine.compilers.compileAll()).not.toThrow();
  });
});
