/**
 * Route schemas compiled by their route's first request rather than when the server starts. Fastify compiles
 * every route's validators and response serializers at start-up: for svc's routes about 0.4 s of CPU, paid
 * by every process that starts a server (`svc serve`, each replica's restart, each test file) although most
 * routes are never called in it. `compileAll` compiles what is left, so a test finds a schema's mistake
 * without calling its route (test/platform.test.ts).
 */
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { schemaValidatorCompiler } from './validator.js';

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
type Serializer = (document: unknown) => string;
/** What Ajv's validators take beside the value (the value's parent, for coercing it in place). */
type ValidationContext = Parameters<ValidateFunction>[1];

export interface RouteSchemaCompilers {
  validatorCompiler: FastifySchemaCompiler<unknown>;
  /** For Fastify's `schemaController.compilersFactory.buildSerializer`. */
  buildSerializer: SerializerFactory;
  /** Compiles every schema not compiled yet; throws what the first that fails to compile throws. */
  compileAll(): void;
}

export function routeSchemaCompilers(): RouteSchemaCompilers {
  const pending = new Set<() => unknown>();
  /** `compile`, run once when first needed (by a request, or `compileAll`). */
  function onFirstUse<T>(compile: () => T): () => T {
    let compiled: { value: T } | undefined;
    const get = () => {
      if (!compiled) {
        compiled = { value: compile() };
        pending.delete(get);
      }
      return compiled.value;
    };
    pending.add(get);
    return get;
  }

  const validatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
    const compiled = onFirstUse(() => schemaValidatorCompiler(route) as ValidateFunction);
    const validate = (data: unknown, context?: ValidationContext): boolean => {
      const inner = compiled();
      const valid = inner(data, context) as boolean;
      validator.errors = inner.errors;
      return valid;
    };
    // Fastify hands a validator the request as its value's parent only when the validator carries
    // `schemaEnv`, as Ajv's own do: Ajv needs the parent to replace a root value it coerces.
    const validator = Object.assign(validate, { errors: null as ValidateFunction['errors'], schemaEnv: true });
    return validator;
  };

  const buildDefaultSerializer = SerializerSelector();
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    const compile = buildDefaultSerializer(externalSchemas, options);
    return (route) => {
      const compiled = onFirstUse(() => compile(route) as Serializer);
      return (document: unknown) => compiled()(document);
    };
  };

  return {
    validatorCompiler,
    buildSerializer,
    compileAll() {
      for (const compile of [...pending]) compile();
    },
  };
}
