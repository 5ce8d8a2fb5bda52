/**
 * The schema against spec 1, constraint by constraint. The expectations come from the independent
 * transcription in fixtures/spec-rules.ts: for every field, values just inside each limit must pass and
 * values just outside must fail with exactly one issue, at the exact path, with the exact sentence.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  BLOCK_KINDS,
  blockSchemas,
  dashboardSpecSchema,
  type BignumberBlock,
  type Block,
  type BlockKind,
  type ChartBlock,
  type DashboardSpec,
  type FieldsBlock,
  type HtmlBlock,
  type Section,
  type StatBlock,
  type StatusMatrixBlock,
  type TableBlock,
  type TableCell,
  type TableValue,
  type Tone,
} from './spec-schema.js';
import { validateDashboardSpec } from './validate-spec.js';
import { blockRules, documentRules, sectionRules, type FieldRule, type SubjectRules } from './fixtures/spec-rules.js';
import { validBlocks } from './fixtures/valid-blocks.js';
import { buildLargeTableSpec, buildTypicalSpec } from './fixtures/specs.js';

type Json = unknown;
type Segment = string | number;

interface Subject {
  name: string;
  rules: SubjectRules;
  /** A valid document containing the subject, with every optional field the cases need. */
  document: () => Record<string, Json>;
  /** Where the subject sits in that document. */
  at: Segment[];
  schema: SchemaNode;
  isBlock: boolean;
}

interface SchemaNode {
  type?: string | string[];
  title?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  additionalProperties?: boolean | SchemaNode;
  $ref?: string;
  discriminator?: unknown;
  oneOf?: SchemaNode[];
  $defs?: Record<string, SchemaNode>;
}

const schemaRoot = dashboardSpecSchema as SchemaNode;
const sectionSchema = schemaRoot.$defs?.section as SchemaNode;

function documentWithBlock(kind: BlockKind): Record<string, Json> {
  return { slug: 'rules', title: 'Rules', sections: [{ blocks: [structuredClone(validBlocks[kind])] }] };
}

function fullSection(): Record<string, Json> {
  return {
    id: 'overview',
    title: 'Overview',
    note: 'A note',
    columns: 12,
    rowHeight: 80,
    gap: 'md',
    align: 'stretch',
    dense: true,
    hidden: false,
    only: 'screen',
    blocks: [structuredClone(validBlocks.stat)],
  };
}

function fullDocument(): Record<string, Json> {
  return {
    slug: 'weekly-report',
    title: 'Weekly report',
    subtitle: 'Week 18',
    order: 1,
    tone: 'info',
    group: 'Engineering',
    groupOrder: 2,
    layout: 'report',
    svc: { agent: 'report-agent', projectId: '123e4567-e89b-42d3-a456-426614174000', sessionId: 's-1', context: 'CI data' },
    meta: [{ label: 'Week', value: '18', tone: 'neutral' }],
    highlights: [{ label: 'Builds', value: 120, tone: 'positive' }],
    sections: [fullSection()],
  };
}

const subjects: Subject[] = [
  { name: 'document', rules: documentRules, document: fullDocument, at: [], schema: schemaRoot, isBlock: false },
  { name: 'section', rules: sectionRules, document: fullDocument, at: ['sections', 0], schema: sectionSchema, isBlock: false },
  ...BLOCK_KINDS.map((kind) => ({
    name: `${kind} block`,
    rules: blockRules[kind],
    document: () => documentWithBlock(kind),
    at: ['sections', 0, 'blocks', 0],
    schema: blockSchemas[kind] as SchemaNode,
    isBlock: true,
  })),
];

// ---------------------------------------------------------------------------------------------
// Paths

/** 'rows[].cells[].tone' → ['rows', 0, 'cells', 0, 'tone'] (the first item of every array). */
function segmentsOf(path: string): Segment[] {
  if (path === '') return [];
  return path.split('.').flatMap((part) => {
    const name = part.replace(/(\[\])+$/, '');
    const depth = (part.length - name.length) / 2;
    return [name, ...Array<number>(depth).fill(0)];
  });
}

function pointer(segments: Segment[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function getAt(root: Json, segments: Segment[]): Json {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, Json>)[segment];
  }
  return node;
}

const REMOVE = Symbol('remove');

function withValueAt(build: () => Record<string, Json>, segments: Segment[], value: Json | typeof REMOVE): Record<string, Json> {
  const document = build();
  const parent = getAt(document, segments.slice(0, -1));
  if (typeof parent !== 'object' || parent === null) throw new Error(`fixture lacks the parent of ${pointer(segments)}`);
  const container = parent as Record<string | number, Json>;
  const last = segments[segments.length - 1] as Segment;
  if (value === REMOVE) delete container[last];
  else container[last] = value;
  return document;
}

// ---------------------------------------------------------------------------------------------
// Expected wording

function withArticle(noun: string): string {
  return /^(?:[aeiou]|html\b|svc\b)/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function numberDescription(type: 'integer' | 'number', minimum?: number, maximum?: number): string {
  const noun = type === 'integer' ? 'an integer' : 'a number';
  if (minimum !== undefined && maximum !== undefined) return `${noun} from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `${noun} of at least ${minimum}`;
  if (maximum !== undefined) return `${noun} of at most ${maximum}`;
  return noun;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Case {
  label: string;
  value: Json | typeof REMOVE;
  /** undefined: the document must be valid; otherwise the one issue, at the field itself. */
  message?: string | RegExp;
}

function repeat(item: Json, count: number): Json[] {
  return Array.from({ length: count }, () => item);
}

function arrayItem(rule: Extract<FieldRule, { type: 'array' }>, current: Json): Json {
  const first = Array.isArray(current) ? current[0] : undefined;
  const item = first ?? rule.sample;
  if (item === undefined) throw new Error('the fixture has no item for this array and the rule no sample');
  return item;
}

function casesFor(rule: FieldRule, current: Json, objectTitle: string | undefined): Case[] {
  switch (rule.type) {
    case 'string': {
      const cases: Case[] = [{ label: 'a number', value: 42, message: 'must be a string (got 42).' }];
      if (rule.maxLength !== undefined) {
        cases.push({ label: 'at max length', value: 'x'.repeat(rule.maxLength) });
        cases.push({
          label: 'one over max length',
          value: 'x'.repeat(rule.maxLength + 1),
          message: rule.slug
            ? /^must be at most 80 characters long \(it has 81\)\.$/
            : `must be at most ${rule.maxLength} characters long (it has ${rule.maxLength + 1}).`,
        });
        // Lengths count characters (code points), not UTF-16 units.
        if (!rule.slug) cases.push({ label: 'max length in astral characters', value: '😀'.repeat(rule.maxLength) });
      } else {
        cases.push({ label: 'a long string', value: 'x'.repeat(5000) });
      }
      if (rule.minLength === 1) {
        cases.push({ label: 'empty', value: '', message: 'must not be empty.' });
        cases.push({ label: 'one character', value: 'x' });
      }
      if (rule.slug) {
        const slugMessage = (got: string) =>
          `must be lowercase letters and digits in words joined by single hyphens, such as "weekly-report" (got ${JSON.stringify(got)}).`;
        cases.push({ label: 'dashed words', value: 'q3-report-2024' });
        for (const bad of ['Weekly Report', 'weekly--report', '-weekly', 'weekly-', 'weekly_report']) {
          cases.push({ label: `slug ${bad}`, value: bad, message: slugMessage(bad) });
        }
      }
      return cases;
    }
    case 'integer':
    case 'number': {
      const description = numberDescription(rule.type, rule.minimum, rule.maximum);
      const cases: Case[] = [{ label: 'a numeric string', value: '7', message: `must be ${description} (got "7").` }];
      if (rule.minimum !== undefined) {
        cases.push({ label: 'at minimum', value: rule.minimum });
        cases.push({ label: 'below minimum', value: rule.minimum - 1, message: `must be ${description} (got ${rule.minimum - 1}).` });
      }
      if (rule.maximum !== undefined) {
        cases.push({ label: 'at maximum', value: rule.maximum });
        cases.push({ label: 'above maximum', value: rule.maximum + 1, message: `must be ${description} (got ${rule.maximum + 1}).` });
      }
      if (rule.minimum === undefined && rule.maximum === undefined) {
        cases.push({ label: 'negative', value: -5 }, { label: 'large', value: 1e9 });
      }
      if (rule.type === 'integer') {
        const fraction = (rule.minimum ?? 0) + 0.5;
        cases.push({ label: 'a fraction', value: fraction, message: `must be ${description} (got ${fraction}).` });
      } else if (rule.minimum === undefined) {
        cases.push({ label: 'a fraction', value: -1.25 });
      }
      return cases;
    }
    case 'boolean':
      return [
        { label: 'true', value: true },
        { label: 'false', value: false },
        { label: 'a string', value: 'yes', message: 'must be true or false (got "yes").' },
      ];
    case 'enum':
      return [
        ...rule.values.map((value): Case => ({ label: `value ${value}`, value })),
        { label: 'an unknown value', value: 'bogus', message: `must be one of: ${rule.values.join(', ')} (got "bogus").` },
      ];
    case 'scalar':
      return [
        { label: 'a string', value: 'x' },
        { label: 'a number', value: 2.5 },
        { label: 'true', value: true, message: 'must be a string or a number (got true).' },
        { label: 'null', value: null, message: 'must be a string or a number (got null).' },
      ];
    case 'scalarOrNull':
      return [
        { label: 'a string', value: 'x' },
        { label: 'a number', value: -3 },
        { label: 'null', value: null },
        { label: 'an array', value: [], message: 'must be a string, a number or null (got an array).' },
      ];
    case 'numberOrNull':
      return [
        { label: 'a number', value: 2.5 },
        { label: 'null', value: null },
        { label: 'a string', value: 'x', message: 'must be a number or null (got "x").' },
      ];
    case 'uri':
      return [
        { label: 'an https URL', value: 'https://example.com/a?b=1#c' },
        { label: 'a mailto URI', value: 'mailto:someone@example.com' },
        { label: 'not a URI', value: 'not a url', message: 'must be a valid URI such as https://example.com/x (got "not a url").' },
        { label: 'a relative path', value: '/images/a.png', message: 'must be a valid URI such as https://example.com/x (got "/images/a.png").' },
        { label: 'a number', value: 42, message: 'must be a string (got 42).' },
      ];
    case 'uuid':
      return [
        { label: 'a UUID', value: '123e4567-e89b-42d3-a456-426614174000' },
        { label: 'not a UUID', value: 'abc', message: 'must be a UUID (got "abc").' },
      ];
    case 'array': {
      const cases: Case[] = [{ label: 'an object', value: {}, message: 'must be an array (got an empty object).' }];
      const item = arrayItem(rule, current);
      if (rule.maxItems !== undefined) {
        const max = rule.maxItems;
        cases.push({ label: 'at max items', value: repeat(item, max) });
        cases.push({ label: 'one item too many', value: repeat(item, max + 1), message: `must have at most ${max} items (it has ${max + 1}).` });
      } else {
        cases.push({ label: 'many items', value: repeat(item, 300) });
      }
      if (rule.minItems === 1) {
        cases.push({ label: 'one item', value: [item] });
        cases.push({ label: 'empty', value: [], message: 'must have at least 1 item (it has 0).' });
      } else {
        cases.push({ label: 'empty', value: [] });
      }
      return cases;
    }
    case 'object':
      return [{ label: 'a number', value: 5, message: new RegExp(`^must be ${escapeRegExp(withArticle(objectTitle ?? '?'))} \\{.+\\} \\(got 5\\)\\.$`) }];
    case 'nullableObject':
      return [
        { label: 'null', value: null },
        { label: 'an empty object', value: {} },
        { label: 'a number', value: 5, message: `must be null or ${withArticle(objectTitle ?? '?')} {tone, label, note} (got 5).` },
      ];
    case 'tableValues':
      return [
        { label: 'an empty object', value: {} },
        { label: 'an array', value: [], message: /^must be a table (row|footer) object \(got an array\)\.$/ },
      ];
    case 'json':
      return [
        { label: 'an empty object', value: {} },
        { label: 'nested values', value: { a: [1, 'x', null, { b: true }] } },
        { label: 'a number', value: 5, message: 'must be an object (got 5).' },
      ];
    case 'kind':
      return [
        { label: 'an unknown kind', value: 'bogus', message: `"bogus" is not a block kind; use one of: ${BLOCK_KINDS.join(', ')}.` },
        { label: 'a number', value: 7, message: `must be a string naming the block kind (got 7); use one of: ${BLOCK_KINDS.join(', ')}.` },
      ];
    case 'block':
      return [{ label: 'a number', value: 5, message: 'must be a block object (got 5).' }];
    case 'section':
      return [{ label: 'a number', value: 5, message: /^must be a section \{id, title, .*blocks\} \(got 5\)\.$/ }];
  }
}

/** The title of the object a field path describes, for messages about that object. */
function objectTitleOf(rules: SubjectRules, path: string): string | undefined {
  return rules.objects[path]?.title;
}

function directChildren(rules: SubjectRules, objectPath: string): string[] {
  const prefix = objectPath === '' ? '' : `${objectPath}.`;
  return Object.keys(rules.fields)
    .filter((path) => path.startsWith(prefix))
    .map((path) => path.slice(prefix.length))
    .filter((rest) => !rest.includes('.') && !rest.includes('['));
}

function expectSingleIssue(document: Json, path: string, message: string | RegExp): void {
  const result = validateDashboardSpec(document);
  expect(result.ok, `expected an issue at ${path}`).toBe(false);
  if (result.ok) return;
  expect(result.issues).toHaveLength(1);
  const [issue] = result.issues;
  expect(issue?.path).toBe(path);
  if (typeof message === 'string') expect(issue?.message).toBe(message);
  else expect(issue?.message).toMatch(message);
  expect(result.total).toBe(1);
}

function expectValid(document: Json): void {
  const result = validateDashboardSpec(document);
  expect(result.ok ? [] : result.issues).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// The schema's shape against the transcription

function shapeOf(schema: SchemaNode): { fields: Set<string>; objects: Map<string, { title?: string; required: string[] }> } {
  const fields = new Set<string>();
  const objects = new Map<string, { title?: string; required: string[] }>();
  const visit = (node: SchemaNode, path: string): void => {
    if (path !== '') fields.add(path);
    if (node.$ref !== undefined || node.discriminator !== undefined) return;
    if (node.items) visit(node.items, `${path}[]`);
    if (node.properties) {
      objects.set(path, { title: node.title, required: [...(node.required ?? [])].sort() });
      for (const [name, child] of Object.entries(node.properties)) visit(child, path === '' ? name : `${path}.${name}`);
    }
  };
  visit(schema, '');
  return { fields, objects };
}

describe('block kinds', () => {
  it('lists the 31 kinds of spec 1 in spec order, html last', () => {
    expect(BLOCK_KINDS).toHaveLength(31);
    expect(BLOCK_KINDS.slice(0, 4)).toEqual(['banner', 'stat', 'stats', 'bignumber']);
    expect(BLOCK_KINDS.slice(-3)).toEqual(['links', 'footnotes', 'html']);
    expect(Object.keys(blockSchemas)).toEqual([...BLOCK_KINDS]);
    expect(Object.keys(validBlocks)).toEqual([...BLOCK_KINDS]);
    expect(Object.keys(blockRules).sort()).toEqual([...BLOCK_KINDS].sort());
  });

  it('discriminates blocks by type with one oneOf branch per kind', () => {
    const blocks = sectionSchema.properties?.blocks?.items;
    expect(blocks?.discriminator).toEqual({ propertyName: 'type' });
    expect(blocks?.oneOf).toHaveLength(31);
  });
});

describe('schema shape matches the spec transcription', () => {
  it.each(subjects.map((subject) => [subject.name, subject] as const))('%s', (_name, subject) => {
    const shape = shapeOf(subject.schema);
    expect([...shape.fields].sort()).toEqual(Object.keys(subject.rules.fields).sort());
    const declaredObjects = Object.fromEntries(
      Object.entries(subject.rules.objects).map(([path, rule]) => [path, { title: rule.title, required: [...rule.required].sort() }]),
    );
    expect(Object.fromEntries(shape.objects)).toEqual(declaredObjects);
  });

  it('rejects unknown properties on every object except table rows, table footers and chart.option', () => {
    const open: string[] = [];
    const visit = (node: SchemaNode, path: string): void => {
      if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'))) {
        if (node.additionalProperties !== false) open.push(path);
      }
      if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, `${path}{}`);
      if (node.items) visit(node.items, `${path}[]`);
      for (const [name, child] of Object.entries(node.properties ?? {})) visit(child, `${path}/${name}`);
      for (const [name, child] of Object.entries(node.$defs ?? {})) visit(child, `#${name}`);
    };
    visit(schemaRoot, '');
    // The block union itself is open; each of its 31 branches is closed.
    expect(open.sort()).toEqual(['#chartBlock/option', '#section/blocks[]', '#tableBlock/footer', '#tableBlock/rows[]']);
  });
});

describe('valid examples', () => {
  it.each(BLOCK_KINDS.map((kind) => [kind]))('a %s block passes', (kind) => {
    expectValid(documentWithBlock(kind));
  });

  it('a document with every top-level and section field passes', () => {
    expectValid(fullDocument());
  });

  it('the minimal document is a slug and a title', () => {
    expectValid({ slug: 'a', title: 'A' });
  });

  it('the typical spec and the largest legal table pass', () => {
    expectValid(buildTypicalSpec());
    expectValid(buildLargeTableSpec(5000, 16));
  });

  it('one table row more than 5000, or a 17th column, is rejected', () => {
    const tooManyRows = validateDashboardSpec(buildLargeTableSpec(5001, 2));
    expect(tooManyRows.ok ? [] : tooManyRows.issues).toEqual([
      { path: '/sections/0/blocks/0/rows', message: 'must have at most 5000 items (it has 5001).' },
    ]);
    const tooManyColumns = validateDashboardSpec(buildLargeTableSpec(1, 17));
    expect(tooManyColumns.ok ? [] : tooManyColumns.issues).toEqual([
      { path: '/sections/0/blocks/0/columns', message: 'must have at most 16 items (it has 17).' },
    ]);
  });
});

describe.each(subjects.map((subject) => [subject.name, subject] as const))('%s constraints', (_name, subject) => {
  const fieldEntries = Object.entries(subject.rules.fields).filter(([, rule]) => rule.type !== 'section' || subject.name === 'document');

  it.each(fieldEntries.map(([path, rule]) => [path, rule] as const))('%s', (path, rule) => {
    const segments = [...subject.at, ...segmentsOf(path)];
    const current = getAt(subject.document(), segments);
    for (const testCase of casesFor(rule, current, objectTitleOf(subject.rules, path))) {
      const document = withValueAt(subject.document, segments, testCase.value);
      if (testCase.message === undefined) {
        const result = validateDashboardSpec(document);
        expect(result.ok ? [] : result.issues, `${path}: ${testCase.label} should pass`).toEqual([]);
      } else {
        expectSingleIssue(document, pointer(segments), testCase.message);
      }
    }
  });

  const objectEntries = Object.entries(subject.rules.objects);

  it.each(objectEntries.map(([path, rule]) => [path === '' ? '(itself)' : path, path, rule] as const))(
    'object %s: required and unknown properties',
    (_label, path, rule) => {
      const objectSegments = [...subject.at, ...segmentsOf(path)];
      for (const property of rule.required) {
        const document = withValueAt(subject.document, [...objectSegments, property], REMOVE);
        const message =
          subject.isBlock && path === '' && property === 'type'
            ? `required property "type" is missing; it names the block kind, one of: ${BLOCK_KINDS.join(', ')}.`
            : `required property "${property}" is missing.`;
        expectSingleIssue(document, pointer([...objectSegments, property]), message);
      }

      const document = withValueAt(subject.document, [...objectSegments, 'colour'], 'red');
      const name = subject.name === 'document' && path === '' ? 'the dashboard spec' : withArticle(rule.title);
      const result = validateDashboardSpec(document);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]?.path).toBe(pointer([...objectSegments, 'colour']));
      const match = /^unknown property "colour" is not allowed on (.+); allowed: (.+)\.$/.exec(result.issues[0]?.message ?? '');
      expect(match?.[1]).toBe(name);
      expect(match?.[2]?.split(', ').sort()).toEqual(directChildren(subject.rules, path).sort());
    },
  );
});

describe('per-kind differences of the common fields', () => {
  const textAligned: BlockKind[] = ['bignumber', 'title', 'heading', 'paragraph', 'quote'];
  const withoutCaptions: BlockKind[] = ['title', 'heading', 'paragraph', 'quote'];

  it.each(textAligned.map((kind) => [kind]))('%s aligns text (left|center), not blocks', (kind) => {
    expectValid(withValueAt(() => documentWithBlock(kind), ['sections', 0, 'blocks', 0, 'align'], 'center'));
    expectSingleIssue(
      withValueAt(() => documentWithBlock(kind), ['sections', 0, 'blocks', 0, 'align'], 'stretch'),
      '/sections/0/blocks/0/align',
      'must be one of: left, center (got "stretch").',
    );
  });

  it('other kinds align blocks (start|center|end|stretch)', () => {
    expectValid(withValueAt(() => documentWithBlock('stat'), ['sections', 0, 'blocks', 0, 'align'], 'stretch'));
    expectSingleIssue(
      withValueAt(() => documentWithBlock('stat'), ['sections', 0, 'blocks', 0, 'align'], 'left'),
      '/sections/0/blocks/0/align',
      'must be one of: start, center, end, stretch (got "left").',
    );
  });

  it.each(withoutCaptions.flatMap((kind) => [[kind, 'title'] as const, [kind, 'caption'] as const]))(
    '%s has no common %s',
    (kind, field) => {
      const result = validateDashboardSpec(withValueAt(() => documentWithBlock(kind), ['sections', 0, 'blocks', 0, field], 'x'));
      expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual([`/sections/0/blocks/0/${field}`]);
      expect(result.ok ? '' : result.issues[0]?.message).toMatch(new RegExp(`^unknown property "${field}" is not allowed on a ${kind} block`));
    },
  );

  it('callout has its own title (max 200) and no caption', () => {
    const at = ['sections', 0, 'blocks', 0];
    expectValid(withValueAt(() => documentWithBlock('callout'), [...at, 'title'], 'x'.repeat(200)));
    expectSingleIssue(
      withValueAt(() => documentWithBlock('callout'), [...at, 'title'], 'x'.repeat(201)),
      '/sections/0/blocks/0/title',
      'must be at most 200 characters long (it has 201).',
    );
    const result = validateDashboardSpec(withValueAt(() => documentWithBlock('callout'), [...at, 'caption'], 'x'));
    expect(result.ok ? '' : result.issues[0]?.message).toMatch(/^unknown property "caption" is not allowed on a callout block/);
  });

  it.each(['span', 'rowSpan', 'minHeight', 'title', 'caption'].map((field) => [field]))('a stats item has no %s', (field) => {
    const result = validateDashboardSpec(withValueAt(() => documentWithBlock('stats'), ['sections', 0, 'blocks', 0, 'items', 0, field], 1));
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual([`/sections/0/blocks/0/items/0/${field}`]);
    expect(result.ok ? '' : result.issues[0]?.message).toMatch(
      /^unknown property "\w+" is not allowed on a stats item; allowed: id, colStart, rowStart, align, hidden, only, label, value, sublabel, delta, tone, rail, spark\.$/,
    );
  });

  it('an html block takes html (required, max 200000) and height (integer 60-2000)', () => {
    const at = ['sections', 0, 'blocks', 0];
    expectValid(withValueAt(() => documentWithBlock('html'), [...at, 'html'], 'x'.repeat(200000)));
    expectSingleIssue(withValueAt(() => documentWithBlock('html'), [...at, 'html'], REMOVE), '/sections/0/blocks/0/html', 'required property "html" is missing.');
    expectSingleIssue(
      withValueAt(() => documentWithBlock('html'), [...at, 'height'], 2001),
      '/sections/0/blocks/0/height',
      'must be an integer from 60 to 2000 (got 2001).',
    );
  });
});

describe('static types', () => {
  it('follow the schema', () => {
    expectTypeOf<Extract<Block, { type: 'table' }>>().toEqualTypeOf<TableBlock>();
    expectTypeOf<TableBlock['rows'][number]>().toEqualTypeOf<Record<string, TableValue>>();
    expectTypeOf<TableValue>().toEqualTypeOf<string | number | null | TableCell>();
    expectTypeOf<ChartBlock['option']>().toEqualTypeOf<Record<string, unknown> | undefined>();
    expectTypeOf<NonNullable<ChartBlock['series']>[number]['data']>().toEqualTypeOf<(number | null)[]>();
    expectTypeOf<StatBlock['value']>().toEqualTypeOf<string | number>();
    expectTypeOf<BignumberBlock['align']>().toEqualTypeOf<'left' | 'center' | undefined>();
    expectTypeOf<StatBlock['align']>().toEqualTypeOf<'start' | 'center' | 'end' | 'stretch' | undefined>();
    expectTypeOf<FieldsBlock['columns']>().toEqualTypeOf<1 | 2 | 3 | undefined>();
    expectTypeOf<StatusMatrixBlock['rows'][number]['cells'][number]>().toEqualTypeOf<{ tone?: Tone; label?: string; note?: string } | null>();
    expectTypeOf<NonNullable<Section['blocks']>[number]>().toEqualTypeOf<Block>();
    expectTypeOf<NonNullable<DashboardSpec['sections']>[number]>().toEqualTypeOf<Section>();
    expectTypeOf<DashboardSpec['slug']>().toEqualTypeOf<string>();
    expectTypeOf<HtmlBlock>().toHaveProperty('html').toEqualTypeOf<string>();
    expectTypeOf<typeof validBlocks>().toExtend<Record<BlockKind, Block>>();
  });
});
