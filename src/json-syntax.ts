/**
 * Where a JSON text stops being JSON, as a line and column a person can go to. JSON.parse says this in a
 * different form for each mistake, often with no position at all ("Unexpected token '}', … is not valid
 * JSON"), so the text is walked once more, only after JSON.parse has refused it.
 */
export interface JsonSyntaxError {
  line: number;
  column: number;
  /** What was expected and what was found there, e.g. `expected a value, found "}"`. */
  problem: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly expected: string,
  ) {
    super(expected);
  }
}

export function locateJsonSyntaxError(text: string): JsonSyntaxError | null {
  let at = 0;
  const fail = (expected: string): never => {
    throw new Stop(at, expected);
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at += 1;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, at)) at += word.length;
    else fail('a value (a string, number, object, array, true, false or null)');
  };
  const string = () => {
    at += 1;
    for (;;) {
      const char = text[at];
      if (char === undefined) fail('a closing quote "');
      if (char === '"') {
        at += 1;
        return;
      }
      if (char === '\\') {
        const escape = text[at + 1] ?? '';
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) fail('four hex digits after \\u');
          at += 6;
        } else if ('"\\/bfnrt'.includes(escape) && escape !== '') at += 2;
        else fail('an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)');
      } else if ((char ?? '') < ' ') fail('\\n or another escape instead of a raw control character inside a string');
      else at += 1;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) fail('a number');
    at += match?.[0].length ?? 0;
  };
  const value = (): void => {
    skipSpace();
    const char = text[at];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    fail('a value (a string, number, object, array, true, false or null)');
  };
  /** The items of an object or array, from its opening bracket to `close`. */
  const items = (close: '}' | ']', item: () => void, after: string) => {
    at += 1;
    skipSpace();
    if (text[at] === close) {
      at += 1;
      return;
    }
    for (;;) {
      item();
      skipSpace();
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text[at] === close) {
        at += 1;
        return;
      }
      fail(`"," or "${close}" after ${after}`);
    }
  };
  const member = () => {
    skipSpace();
    if (text[at] !== '"') fail('a property name in double quotes');
    string();
    skipSpace();
    if (text[at] !== ':') fail('":" after the property name');
    at += 1;
    value();
  };
  const object = () => items('}', member, 'the property value');
  const array = () => items(']', value, 'the array item');
  try {
    value();
    skipSpace();
    if (at < text.length) fail('nothing after the document');
    return null;
  } catch (error) {
    // Nesting deeper than the stack (a body of a million "[") is left to JSON.parse's own words.
    if (!(error instanceof Stop)) return null;
    const before = text.slice(0, error.offset);
    const line = before.split('\n').length;
    const column = error.offset - before.lastIndexOf('\n');
    const found = text[error.offset];
    const foundText = found === undefined ? 'the end of the text' : found === '\n' ? 'the end of the line' : JSON.stringify(found);
    return { line, column, problem: `expected ${error.expected}, found ${foundText}` };
  }
}
