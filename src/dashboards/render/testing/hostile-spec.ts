/**
 * Test support: dashboard specs whose every free-text field carries an attack string, built from the
 * valid example of each block kind and the spec schema (so enumerations stay valid, lengths stay within
 * their limits and URI fields get hostile URLs). Used by the page tests and the browser tests.
 */
import { validBlocks } from '../../fixtures/valid-blocks.js';
import { BLOCK_KINDS, blockSchemas, dashboardSpecSchema, sectionSchema, type Block, type DashboardSpec, type Section } from '../../spec-schema.js';

/** Strings that would run script if any field reached the page unescaped. */
export const XSS_PAYLOADS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  '</textarea></title></style><script>alert(1)</script>',
  '{{constructor.constructor("alert(1)")()}} ${alert(1)}',
  '\u202Egnp.exe\u202C <b onmouseover=alert(1)>rtl</b>',
  '[click](javascript:alert(1)) ![x](javascript:alert(1)) <iframe src=javascript:alert(1)>',
  ']]><script>alert(1)</script><!--',
  'javascript:alert(1)',
] as const;

/** Values for URI fields: valid URIs to the validator, refused by the page. */
export const HOSTILE_URLS = ['javascript:alert(1)', 'JaVaScRiPt:alert(document.cookie)', 'vbscript:msgbox(1)', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='] as const;

interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  maxLength?: number;
  minLength?: number;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
}

function fit(payload: string, schema: SchemaNode): string {
  return schema.maxLength !== undefined ? payload.slice(0, schema.maxLength) : payload;
}

function hostileValue(value: unknown, schema: SchemaNode | undefined, payload: string, url: string): unknown {
  if (!schema) return value;
  if (typeof value === 'string') {
    if (schema.enum) return value;
    if (schema.format === 'uri') return url;
    return fit(payload, schema);
  }
  if (Array.isArray(value)) return value.map((item) => hostileValue(item, schema.items, payload, url));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const child = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      copy[key] = key === 'type' ? item : hostileValue(item, child, payload, url);
    }
    return copy;
  }
  return value;
}

/** One block of a kind with every string replaced; the html block keeps harmless markup. */
export function hostileBlock(kind: Block['type'], payload: string, url: string): Block {
  const block = hostileValue(validBlocks[kind], blockSchemas[kind] as SchemaNode, payload, url) as Block;
  if (block.type === 'html') return { ...block, html: '<p>Sandboxed content</p>' };
  if (block.type === 'chart') {
    // Free-form option strings too, including ones ECharts writes into attributes.
    return {
      ...block,
      categories: [payload, 'b'],
      option: { title: { text: payload, subtext: payload }, series: [{ name: payload, label: { show: true, formatter: payload } }] },
    };
  }
  return block;
}

export function hostileSpec(slug: string, payload: string, url: string): DashboardSpec {
  const blocks = BLOCK_KINDS.map((kind) => ({ ...hostileBlock(kind, payload, url), id: payload.slice(0, 80) }));
  // Every other free-text field gets the payload cut to the schema's limit, so that a long payload is still a
  // spec svc publishes.
  const section = { ...(hostileValue({ id: '', title: '', note: '' }, sectionSchema as SchemaNode, payload, url) as object), blocks } as Section;
  const fields = {
    title: '',
    subtitle: '',
    group: '',
    tone: 'danger',
    svc: { agent: '', sessionId: '', context: '' },
    meta: [{ label: '', value: '', tone: 'info' }],
    highlights: [{ label: '', value: '' }],
  };
  return { slug, ...(hostileValue(fields, dashboardSpecSchema as SchemaNode, payload, url) as Omit<DashboardSpec, 'slug' | 'sections'>), sections: [section] };
}

/** A spec whose chart option writes hostile strings where ECharts puts them into attributes. */
export function hostileChartOptionSpec(slug: string): DashboardSpec {
  const chart = validBlocks.chart;
  return {
    slug,
    title: 'Hostile chart options',
    sections: [
      {
        blocks: [
          { ...chart, option: { textStyle: { fontFamily: 'x"><script>alert(1)</script>' }, title: { text: 'x', textStyle: { fontFamily: 'y"><img src=x onerror=alert(1)>' } } } },
          { ...chart, option: { color: ['red" onmouseover="alert(1)'], series: [{ itemStyle: { color: '"><script>alert(1)</script>' } }] } },
          { ...chart, option: { graphic: [{ type: 'image', style: { image: 'javascript:alert(1)', width: 10, height: 10 } }] } },
        ],
      },
    ],
  };
}
