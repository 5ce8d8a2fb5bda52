/**
 * Colours of the page, light and dark, as CSS custom properties. Server-rendered charts cannot know
 * the reader's theme, so they are drawn with placeholder colours ("sentinels") that the stylesheet
 * maps back to these properties: one SVG follows the theme toggle and prints in light colours.
 */
import type { Tone } from '../spec-schema.js';

export const TONES: readonly Tone[] = ['neutral', 'positive', 'warning', 'danger', 'info', 'accent'];

interface ThemeColors {
  light: string;
  dark: string;
}

export const TONE_COLORS: Record<Tone, ThemeColors> = {
  neutral: { light: '#64748b', dark: '#94a3b8' },
  positive: { light: '#16a34a', dark: '#4ade80' },
  warning: { light: '#d97706', dark: '#fbbf24' },
  danger: { light: '#dc2626', dark: '#f87171' },
  info: { light: '#2563eb', dark: '#60a5fa' },
  accent: { light: '#7c3aed', dark: '#a78bfa' },
};

/** Series without a tone take these in turn: distinguishable in both themes and for common colour blindness. */
export const SERIES_COLORS: readonly ThemeColors[] = [
  { light: '#3b6fd8', dark: '#6f9cf2' },
  { light: '#e0862d', dark: '#f2a65a' },
  { light: '#2a9d8f', dark: '#4cc4b5' },
  { light: '#c2417a', dark: '#e872a6' },
  { light: '#7b61d1', dark: '#a48ff0' },
  { light: '#8c9a2a', dark: '#b5c24e' },
  { light: '#5b8fa8', dark: '#86b8d0' },
  { light: '#b5603a', dark: '#d98a65' },
];

/** Chart furniture: text, axes, grid lines, the surface behind the chart. */
export const CHART_INK = {
  text: { light: '#334155', dark: '#cbd5e1' },
  muted: { light: '#64748b', dark: '#94a3b8' },
  axis: { light: '#cbd5e1', dark: '#475569' },
  grid: { light: '#e7ebf0', dark: '#2a3340' },
  surface: { light: '#ffffff', dark: '#171b22' },
  track: { light: '#edf0f4', dark: '#262d38' },
  /*
   * Numbers on heatmap cells (the info tone at 8–80 % opacity on the surface): on pale cells, and on
   * bright ones, each at least 4.3:1 in both themes. Light cells never get dark enough for white.
   */
  onPaleCell: { light: '#0b1220', dark: '#f8fafc' },
  onStrongCell: { light: '#0b1220', dark: '#0b1220' },
} as const satisfies Record<string, ThemeColors>;

export type ChartInk = keyof typeof CHART_INK;

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** Sentinels are near-black colours that no one picks on purpose: #0101xx series, #0202xx ink, #0303xx tones. */
export function seriesSentinel(index: number): string {
  return `#0101${hex2(index % SERIES_COLORS.length)}`;
}

const INK_NAMES = Object.keys(CHART_INK) as ChartInk[];

export function inkSentinel(ink: ChartInk): string {
  return `#0202${hex2(INK_NAMES.indexOf(ink))}`;
}

export function toneSentinel(tone: Tone): string {
  return `#0303${hex2(TONES.indexOf(tone))}`;
}

/** Every sentinel with the custom property it stands for. */
export function sentinelVariables(): Array<{ sentinel: string; variable: string }> {
  return [
    ...SERIES_COLORS.map((_, index) => ({ sentinel: seriesSentinel(index), variable: `--series-${index}` })),
    ...INK_NAMES.map((ink) => ({ sentinel: inkSentinel(ink), variable: `--chart-${ink}` })),
    ...TONES.map((tone) => ({ sentinel: toneSentinel(tone), variable: `--${tone}` })),
  ];
}

/** Custom property declarations for one theme. */
export function themeVariables(theme: keyof ThemeColors): string {
  const parts: string[] = [];
  for (const tone of TONES) parts.push(`--${tone}:${TONE_COLORS[tone][theme]}`);
  SERIES_COLORS.forEach((colors, index) => parts.push(`--series-${index}:${colors[theme]}`));
  for (const ink of INK_NAMES) parts.push(`--chart-${ink}:${CHART_INK[ink][theme]}`);
  return parts.join(';');
}
