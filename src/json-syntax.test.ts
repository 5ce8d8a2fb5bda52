import { describe, expect, it } from 'vitest';
import { locateJsonSyntaxError } from './json-syntax.js';

describe('locateJsonSyntaxError', () => {
  it('finds the line and column of the mistakes people make', () => {
    expect(locateJsonSyntaxError('{"slug": "a",\n  "title": }')).toEqual({ line: 2, column: 12, problem: 'expected a value (a string, number, object, array, true, false or null), found "}"' });
    expect(locateJsonSyntaxError('{\n  "a": [1, 2,]\n}')).toEqual({ line: 2, column: 14, problem: 'expected a value (a string, number, object, array, true, false or null), found "]"' });
    expect(locateJsonSyntaxError('{"a": 1\n "b": 2}')).toEqual({ line: 2, column: 2, problem: 'expected "," or "}" after the property value, found "\\""' });
    expect(locateJsonSyntaxError("{'a': 1}")).toEqual({ line: 1, column: 2, problem: 'expected a property name in double quotes, found "\'"' });
    expect(locateJsonSyntaxError('{"a": "b')).toEqual({ line: 1, column: 9, problem: 'expected a closing quote ", found the end of the text' });
    expect(locateJsonSyntaxError('{} {}')).toEqual({ line: 1, column: 4, problem: 'expected nothing after the document, found "{"' });
  });

  it('leaves nesting deeper than the stack to JSON.parse instead of failing itself', () => {
    expect(locateJsonSyntaxError('['.repeat(1_000_000))).toBeNull();
  });

  it('finds nothing wrong in valid JSON', () => {
    expect(locateJsonSyntaxError('{"a": [1, -2.5e3, true, null, "\\u00e9\\n"], "b": {}}')).toBeNull();
  });
});
