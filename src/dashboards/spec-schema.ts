/**
 * The dashboard spec document of spec 1 (plus contract §3), as one JSON Schema built with TypeBox.
 *
 * Conventions that the validator's messages rely on:
 * - Every closed object carries a `title` naming it ("stat block", "cell object"); issues say
 *   "unknown property … is not allowed on a stat block".
 * - Unions of JSON types are written as one `type: [...]` keyword, never as `anyOf`: a wrong value
 *   then yields one error instead of one per branch, and valid documents never pay for failed branches.
 *   A union that includes an object (a table value, a statusMatrix cell) puts the object's keywords
 *   beside the type list; JSON Schema applies them to objects only.
 * - Blocks are a `oneOf` with a `discriminator` on `type`, so Ajv checks a block against its own kind only.
 * - Sections and block kinds live in `$defs`: Ajv compiles each into its own function (see below), and
 *   the validator can check a document piece by piece.
 */
import { Type, type Static, type TProperties, type TSchema } from 'typebox';

/** The block kinds, in the order spec 1 lists them. */
/** The kinds of the `chart` block (spec 1, block 9). */
export const CHART_KINDS = ['bar', 'barStacked', 'barHorizontal', 'line', 'area', 'pie', 'donut', 'scatter', 'radar', 'funnel'] as const;

export const BLOCK_KINDS = [
  'banner',
  'stat',
  'stats',
  'bignumber',
  'gauge',
  'segments',
  'progressList',
  'scorecard',
  'chart',
  'heatmap',
  'statusMatrix',
  'comparison',
  'table',
  'list',
  'timeline',
  'fields',
  'pills',
  'people',
  'title',
  'heading',
  'paragraph',
  'prose',
  'callout',
  'quote',
  'code',
  'steps',
  'checklist',
  'figure',
  'links',
  'footnotes',
  'html',
] as const;

export type BlockKind = (typeof BLOCK_KINDS)[number];

/** How deep `chart.option` may nest objects and arrays; renderers recurse into it. */
export const MAX_OPTION_DEPTH = 32;

/** The custom Ajv keyword (registered by the validator) that bounds the nesting of free-form JSON. */
export const MAX_DEPTH_KEYWORD = 'x-maxDepth';

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

// ---------------------------------------------------------------------------------------------
// Building blocks

const { Optional } = Type;

function text(maxLength: number) {
  return Type.String({ maxLength });
}

function integerRange(minimum: number, maximum: number) {
  return Type.Integer({ minimum, maximum });
}

function closedObject<Properties extends TProperties>(title: string, properties: Properties) {
  return Type.Object(properties, { additionalProperties: false, title });
}

function list<Item extends TSchema>(item: Item, maxItems: number) {
  return Type.Array(item, { maxItems });
}

const Tone = Type.Enum(['neutral', 'positive', 'warning', 'danger', 'info', 'accent']);
const BlockAlign = Type.Enum(['start', 'center', 'end', 'stretch']);
const TextAlign = Type.Enum(['left', 'center']);
const Only = Type.Enum(['screen', 'print']);
const Scalar = Type.Unsafe<string | number>({ type: ['string', 'number'] });
const ScalarOrNull = Type.Unsafe<string | number | null>({ type: ['string', 'number', 'null'] });
const NumberOrNull = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const Uri = Type.String({ format: 'uri' });

export type Tone = Static<typeof Tone>;

// ---------------------------------------------------------------------------------------------
// Fields every block carries (spec 1, "Common block fields")

const positionFields = {
  id: Optional(text(80)),
  span: Optional(integerRange(1, 24)),
  rowSpan: Optional(integerRange(1, 24)),
  colStart: Optional(integerRange(1, 24)),
  rowStart: Optional(integerRange(1, 60)),
};

const visibilityFields = {
  hidden: Optional(Type.Boolean()),
  only: Optional(Only),
  minHeight: Optional(integerRange(60, 2000)),
};

const captionFields = {
  title: Optional(text(200)),
  caption: Optional(text(400)),
};

/** The fields every block carries: where it sits, whether it shows, and its title and caption. */
export const COMMON_BLOCK_FIELDS: ReadonlySet<string> = new Set([...Object.keys(positionFields), ...Object.keys(visibilityFields), ...Object.keys(captionFields)]);

/**
 * A block: the common fields, in the spec's order, then `type` and the kind's own fields. The pieces
 * never share a key (TypeScript types a spread of generic parts as an intersection, so an override
 * would type-check as the intersection of both schemas).
 */
function blockObject<Kind extends BlockKind, Align extends TSchema, Captions extends TProperties, Fields extends TProperties>(
  kind: Kind,
  align: Align,
  captions: Captions,
  ownFields: Fields,
) {
  return closedObject(`${kind} block`, {
    ...positionFields,
    align: Optional(align),
    ...visibilityFields,
    ...captions,
    type: Type.Literal(kind),
    ...ownFields,
  });
}

/** Most kinds: every common field. */
function block<Kind extends BlockKind, Fields extends TProperties>(kind: Kind, ownFields: Fields) {
  return blockObject(kind, BlockAlign, captionFields, ownFields);
}

/** The text kinds (title, heading, paragraph, quote): TextAlign, and no common title or caption. */
function textBlock<Kind extends BlockKind, Fields extends TProperties>(kind: Kind, ownFields: Fields) {
  return blockObject(kind, TextAlign, {}, ownFields);
}

// ---------------------------------------------------------------------------------------------
// Parts shared by several kinds

const statDelta = closedObject('stat delta', {
  value: Scalar,
  direction: Type.Enum(['up', 'down', 'flat']),
  tone: Optional(Tone),
});

const statFields = {
  label: text(120),
  value: Scalar,
  sublabel: Optional(text(200)),
  delta: Optional(statDelta),
  tone: Optional(Tone),
  rail: Optional(Type.Number({ minimum: 0, maximum: 1 })),
  spark: Optional(list(Type.Number(), 200)),
};

const statsItem = closedObject('stats item', {
  id: positionFields.id,
  colStart: positionFields.colStart,
  rowStart: positionFields.rowStart,
  align: Optional(BlockAlign),
  hidden: visibilityFields.hidden,
  only: visibilityFields.only,
  ...statFields,
});

const tableCell = closedObject('cell object', {
  value: ScalarOrNull,
  tone: Optional(Tone),
  badge: Optional(Type.Boolean()),
  spark: Optional(list(Type.Number(), 200)),
  href: Optional(Uri),
  bar: Optional(Type.Number({ minimum: 0, maximum: 1 })),
});
export type TableCell = Static<typeof tableCell>;
export type TableValue = string | number | null | TableCell;

/** A row or footer value: a scalar, null, or a cell object (see the union convention above). */
const tableValue = Type.Unsafe<TableValue>({ ...tableCell, type: ['string', 'number', 'null', 'object'] });

/** A table row: validated on its own when a table is too large to list its problems in one pass. */
export const tableRowSchema = tableValueMap('table row');

function tableValueMap(title: string) {
  return Type.Unsafe<Record<string, TableValue>>({ type: 'object', title, additionalProperties: tableValue });
}

const statusCell = closedObject('statusMatrix cell', {
  tone: Optional(Tone),
  label: Optional(text(8)),
  note: Optional(text(300)),
});
type StatusCell = Static<typeof statusCell>;
const statusCellOrNull = Type.Unsafe<StatusCell | null>({ ...statusCell, type: ['null', 'object'] });

const comparisonSide = closedObject('comparison side', {
  label: text(120),
  caption: Optional(text(200)),
});

/** `chart.option` is an ECharts option: any JSON object, bounded only in depth. */
const chartOption = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  [MAX_DEPTH_KEYWORD]: MAX_OPTION_DEPTH,
});

// ---------------------------------------------------------------------------------------------
// The 31 block kinds, in spec order

export const blockSchemas = {
  banner: block('banner', {
    headline: text(200),
    detail: Optional(text(1000)),
    tone: Tone,
    meta: Optional(list(closedObject('banner meta item', { label: text(80), value: Scalar }), 6)),
  }),

  stat: block('stat', statFields),

  stats: block('stats', {
    items: list(statsItem, 12),
    columns: Optional(integerRange(1, 6)),
  }),

  bignumber: blockObject('bignumber', TextAlign, captionFields, {
    value: Scalar,
    label: Optional(text(160)),
    context: Optional(text(400)),
    tone: Optional(Tone),
  }),

  gauge: block('gauge', {
    value: Type.Number(),
    min: Optional(Type.Number()),
    max: Optional(Type.Number()),
    label: Optional(text(120)),
    unit: Optional(text(16)),
    tone: Optional(Tone),
    height: Optional(integerRange(100, 900)),
    bands: Optional(list(closedObject('gauge band', { upTo: Type.Number(), tone: Tone }), 6)),
  }),

  segments: block('segments', {
    segments: list(closedObject('segment', { label: text(120), value: Type.Number(), tone: Optional(Tone) }), 12),
    total: Optional(Scalar),
    totalLabel: Optional(text(160)),
  }),

  progressList: block('progressList', {
    items: list(
      closedObject('progressList item', {
        label: text(160),
        value: Type.Number(),
        max: Optional(Type.Number()),
        display: Optional(text(40)),
        tone: Optional(Tone),
      }),
      60,
    ),
  }),

  scorecard: block('scorecard', {
    overall: Optional(
      closedObject('scorecard overall', {
        grade: Scalar,
        label: Optional(text(120)),
        detail: Optional(text(600)),
        tone: Optional(Tone),
      }),
    ),
    criteria: list(
      closedObject('scorecard criterion', {
        label: text(160),
        score: Type.Number(),
        max: Optional(Type.Number()),
        weight: Optional(Type.Number()),
        note: Optional(text(600)),
        tone: Optional(Tone),
      }),
      40,
    ),
    scale: Optional(Type.Number()),
  }),

  chart: block('chart', {
    kind: Optional(Type.Enum([...CHART_KINDS])),
    categories: Optional(Type.Array(Type.String())),
    series: Optional(
      Type.Array(
        closedObject('chart series', {
          name: text(120),
          data: Type.Array(NumberOrNull),
          tone: Optional(Tone),
        }),
      ),
    ),
    legend: Optional(Type.Boolean()),
    unit: Optional(text(16)),
    height: Optional(integerRange(120, 900)),
    stacked: Optional(Type.Boolean()),
    option: Optional(chartOption),
  }),

  heatmap: block('heatmap', {
    xLabels: list(Type.String(), 200),
    yLabels: list(Type.String(), 200),
    values: list(Type.Array(NumberOrNull), 200),
    unit: Optional(text(16)),
    height: Optional(integerRange(120, 900)),
  }),

  statusMatrix: block('statusMatrix', {
    columns: Type.Array(closedObject('statusMatrix column', { label: text(80), short: Optional(text(16)) }), {
      minItems: 1,
      maxItems: 20,
    }),
    rows: list(
      closedObject('statusMatrix row', {
        label: text(160),
        note: Optional(text(300)),
        cells: list(statusCellOrNull, 20),
      }),
      200,
    ),
    legend: Optional(list(closedObject('statusMatrix legend item', { label: text(80), tone: Tone }), 8)),
  }),

  comparison: block('comparison', {
    left: comparisonSide,
    right: comparisonSide,
    rows: list(
      closedObject('comparison row', {
        label: text(200),
        left: ScalarOrNull,
        right: ScalarOrNull,
        delta: Optional(Scalar),
        tone: Optional(Tone),
        note: Optional(text(400)),
      }),
      200,
    ),
    numeric: Optional(Type.Boolean()),
  }),

  table: block('table', {
    columns: Type.Array(
      closedObject('table column', {
        key: text(80),
        label: text(120),
        align: Optional(Type.Enum(['left', 'right', 'center'])),
        numeric: Optional(Type.Boolean()),
        width: Optional(text(24)),
      }),
      { minItems: 1, maxItems: 16 },
    ),
    rows: list(tableRowSchema, 5000),
    searchable: Optional(Type.Boolean()),
    maxHeight: Optional(integerRange(120, 2000)),
    numbered: Optional(Type.Boolean()),
    striped: Optional(Type.Boolean()),
    footer: Optional(tableValueMap('table footer')),
  }),

  list: block('list', {
    items: list(
      closedObject('list item', {
        title: text(300),
        detail: Optional(text(2000)),
        meta: Optional(text(200)),
        tone: Optional(Tone),
      }),
      500,
    ),
    ordered: Optional(Type.Boolean()),
  }),

  timeline: block('timeline', {
    events: list(
      closedObject('timeline event', {
        when: text(80),
        title: text(300),
        detail: Optional(text(2000)),
        tone: Optional(Tone),
      }),
      300,
    ),
  }),

  fields: block('fields', {
    fields: list(closedObject('field', { label: text(120), value: text(4000), tone: Optional(Tone) }), 40),
    columns: Optional(Type.Enum([1, 2, 3])),
    inline: Optional(Type.Boolean()),
  }),

  pills: block('pills', {
    pills: list(closedObject('pill', { label: text(120), value: Optional(Scalar), tone: Optional(Tone) }), 60),
    solid: Optional(Type.Boolean()),
  }),

  people: block('people', {
    people: list(
      closedObject('person', {
        name: text(160),
        role: Optional(text(160)),
        detail: Optional(text(400)),
        initials: Optional(text(3)),
        avatarUrl: Optional(Uri),
        status: Optional(text(80)),
        tone: Optional(Tone),
      }),
      60,
    ),
    columns: Optional(Type.Enum([1, 2, 3])),
  }),

  title: textBlock('title', {
    eyebrow: Optional(text(120)),
    headline: text(300),
    standfirst: Optional(text(1200)),
    byline: Optional(text(200)),
    dateline: Optional(text(120)),
    tone: Optional(Tone),
    rule: Optional(Type.Boolean()),
  }),

  heading: textBlock('heading', {
    text: text(300),
    level: Optional(Type.Enum([2, 3, 4])),
    eyebrow: Optional(text(120)),
    tone: Optional(Tone),
    rule: Optional(Type.Boolean()),
  }),

  paragraph: textBlock('paragraph', {
    text: text(6000),
    lead: Optional(Type.Boolean()),
    tone: Optional(Tone),
  }),

  prose: block('prose', {
    markdown: text(40000),
    size: Optional(Type.Enum(['sm', 'base', 'lg'])),
    columns: Optional(Type.Enum([1, 2])),
    dropCap: Optional(Type.Boolean()),
    plain: Optional(Type.Boolean()),
  }),

  // callout has its own `title` and no `caption`.
  callout: blockObject('callout', BlockAlign, {}, {
    markdown: text(8000),
    title: Optional(text(200)),
    tone: Optional(Tone),
    icon: Optional(Type.Enum(['note', 'info', 'tip', 'warning', 'danger', 'success', 'none'])),
  }),

  quote: textBlock('quote', {
    quote: text(2000),
    attribution: Optional(text(160)),
    role: Optional(text(160)),
    source: Optional(text(200)),
    tone: Optional(Tone),
  }),

  code: block('code', {
    code: text(20000),
    language: Optional(text(24)),
    filename: Optional(text(200)),
    wrap: Optional(Type.Boolean()),
    lineNumbers: Optional(Type.Boolean()),
    highlight: Optional(list(Type.Integer({ minimum: 1 }), 200)),
    maxHeight: Optional(integerRange(80, 2000)),
  }),

  steps: block('steps', {
    steps: list(
      closedObject('step', {
        title: text(300),
        detail: Optional(text(2000)),
        meta: Optional(text(160)),
        status: Optional(Type.Enum(['done', 'active', 'todo', 'blocked'])),
      }),
      100,
    ),
    start: Optional(integerRange(0, 999)),
  }),

  checklist: block('checklist', {
    items: list(
      closedObject('checklist item', {
        label: text(300),
        state: Optional(Type.Enum(['done', 'todo', 'blocked', 'na'])),
        detail: Optional(text(1000)),
        meta: Optional(text(160)),
      }),
      200,
    ),
    progress: Optional(Type.Boolean()),
  }),

  figure: block('figure', {
    url: Uri,
    alt: Type.String({ minLength: 1, maxLength: 400 }),
    label: Optional(text(40)),
    figcaption: Optional(text(1000)),
    credit: Optional(text(200)),
    height: Optional(integerRange(80, 1200)),
    aspect: Optional(Type.Enum(['16/9', '4/3', '3/2', '1/1', 'auto'])),
    fit: Optional(Type.Enum(['contain', 'cover'])),
    plain: Optional(Type.Boolean()),
  }),

  links: block('links', {
    links: list(
      closedObject('link', {
        label: text(240),
        url: Uri,
        note: Optional(text(400)),
        source: Optional(text(80)),
        tone: Optional(Tone),
      }),
      100,
    ),
    columns: Optional(Type.Enum([1, 2])),
  }),

  footnotes: block('footnotes', {
    notes: Type.Array(closedObject('footnote', { label: Optional(text(8)), text: text(2000) }), {
      minItems: 1,
      maxItems: 100,
    }),
    start: Optional(integerRange(0, 999)),
  }),

  // Contract §3: rendered in a sandboxed iframe, never same-origin.
  html: block('html', {
    html: text(200000),
    height: Optional(integerRange(60, 2000)),
  }),
} satisfies Record<BlockKind, TSchema>;

type BlockSchemas = typeof blockSchemas;
export type BlockOfKind<Kind extends BlockKind> = Static<BlockSchemas[Kind]>;
export type Block = { [Kind in BlockKind]: BlockOfKind<Kind> }[BlockKind];

export type BannerBlock = BlockOfKind<'banner'>;
export type StatBlock = BlockOfKind<'stat'>;
export type StatsBlock = BlockOfKind<'stats'>;
export type BignumberBlock = BlockOfKind<'bignumber'>;
export type GaugeBlock = BlockOfKind<'gauge'>;
export type SegmentsBlock = BlockOfKind<'segments'>;
export type ProgressListBlock = BlockOfKind<'progressList'>;
export type ScorecardBlock = BlockOfKind<'scorecard'>;
export type ChartBlock = BlockOfKind<'chart'>;
export type HeatmapBlock = BlockOfKind<'heatmap'>;
export type StatusMatrixBlock = BlockOfKind<'statusMatrix'>;
export type ComparisonBlock = BlockOfKind<'comparison'>;
export type TableBlock = BlockOfKind<'table'>;
export type ListBlock = BlockOfKind<'list'>;
export type TimelineBlock = BlockOfKind<'timeline'>;
export type FieldsBlock = BlockOfKind<'fields'>;
export type PillsBlock = BlockOfKind<'pills'>;
export type PeopleBlock = BlockOfKind<'people'>;
export type TitleBlock = BlockOfKind<'title'>;
export type HeadingBlock = BlockOfKind<'heading'>;
export type ParagraphBlock = BlockOfKind<'paragraph'>;
export type ProseBlock = BlockOfKind<'prose'>;
export type CalloutBlock = BlockOfKind<'callout'>;
export type QuoteBlock = BlockOfKind<'quote'>;
export type CodeBlock = BlockOfKind<'code'>;
export type StepsBlock = BlockOfKind<'steps'>;
export type ChecklistBlock = BlockOfKind<'checklist'>;
export type FigureBlock = BlockOfKind<'figure'>;
export type LinksBlock = BlockOfKind<'links'>;
export type FootnotesBlock = BlockOfKind<'footnotes'>;
export type HtmlBlock = BlockOfKind<'html'>;

export type StatsItem = Static<typeof statsItem>;
export type TableRow = Record<string, TableValue>;

/**
 * Each block kind and the section are `$defs` of the document schema, referenced with `$ref`. Ajv
 * compiles every referenced schema into its own function; inlined, the whole document would be one
 * function of nearly a megabyte, too large for V8 to optimize, and validation would run 2-3× slower.
 */
const blockDefinitionName = (kind: BlockKind) => `${kind}Block`;

function definitionRef<Target>(name: string) {
  return Type.Unsafe<Target>({ $ref: `#/$defs/${name}` });
}

/** The block kinds keyed by their `$defs` name, for schemas that embed the block union. */
export const blockDefinitions: Readonly<Record<string, TSchema>> = Object.fromEntries(
  BLOCK_KINDS.map((kind) => [blockDefinitionName(kind), blockSchemas[kind]]),
);

/**
 * Any block: Ajv picks the branch by `type` (option `discriminator: true`). Its branches are `$ref`s
 * into `blockDefinitions`, so it is only valid inside a schema that has those `$defs`.
 */
export const blockSchema = Type.Unsafe<Block>({
  type: 'object',
  title: 'block',
  discriminator: { propertyName: 'type' },
  oneOf: BLOCK_KINDS.map((kind) => ({ $ref: `#/$defs/${blockDefinitionName(kind)}` })),
});

// ---------------------------------------------------------------------------------------------
// Sections and the document

export const sectionSchema = closedObject('section', {
  id: Optional(text(80)),
  title: Optional(text(200)),
  note: Optional(text(400)),
  columns: Optional(integerRange(1, 24)),
  rowHeight: Optional(integerRange(40, 600)),
  gap: Optional(Type.Enum(['none', 'xs', 'sm', 'md', 'lg', 'xl'])),
  align: Optional(BlockAlign),
  dense: Optional(Type.Boolean()),
  hidden: Optional(Type.Boolean()),
  only: Optional(Only),
  blocks: Optional(Type.Array(blockSchema)),
});

export type Section = Static<typeof sectionSchema>;

/**
 * The whole document, self-contained: sections and block kinds are in its `$defs`.
 * Validate documents with validateDashboardSpec (validate-spec.ts), not by handing this schema to
 * another Ajv instance: it needs the `discriminator` option and the depth keyword, and Fastify's
 * default Ajv settings (removeAdditional, coerceTypes) would rewrite the document instead of rejecting it.
 */
export const dashboardSpecSchema = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 80, pattern: SLUG_PATTERN }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    subtitle: Optional(text(400)),
    order: Optional(Type.Integer()),
    tone: Optional(Tone),
    group: Optional(text(80)),
    groupOrder: Optional(Type.Integer()),
    layout: Optional(Type.Enum(['grid', 'report'])),
    svc: Optional(
      closedObject('svc context', {
        agent: Optional(text(120)),
        projectId: Optional(Type.String({ format: 'uuid' })),
        sessionId: Optional(text(80)),
        context: Optional(text(4000)),
      }),
    ),
    meta: Optional(list(closedObject('meta item', { label: text(80), value: text(200), tone: Optional(Tone) }), 12)),
    highlights: Optional(list(closedObject('highlight', { label: text(80), value: Scalar, tone: Optional(Tone) }), 4)),
    sections: Optional(Type.Array(definitionRef<Section>('section'))),
  },
  { additionalProperties: false, title: 'dashboard spec', $defs: { section: sectionSchema, ...blockDefinitions } },
);

export type DashboardSpec = Static<typeof dashboardSpecSchema>;
