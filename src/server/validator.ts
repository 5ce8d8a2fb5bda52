import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isUuid } from '../ids.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, ...options });
  addFormats(ajv);
  // ajv-formats' uuid also takes a `urn:uuid:` prefix; svc's ids are the bare 8-4-4-4-12 hex form.
  ajv.addFormat('uuid', { type: 'string', validate: isUuid });
  return ajv;
}

/**
 * Bodies are validated strictly (no type coercion, unknown properties are errors, not silently
 * removed); query strings and path parameters arrive as text, so those coerce.
 */
const bodyAjv = makeAjv({ coerceTypes: false, removeAdditional: false, useDefaults: true });
const textAjv = makeAjv({ coerceTypes: 'array', removeAdditional: false, useDefaults: true });

export const schemaValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object);
};
