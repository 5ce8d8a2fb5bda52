import type { Tone } from '../spec-schema.js';

/** ` t-positive` for a tone, '' without one: the stylesheet sets `--t` from it. */
export function toneClass(tone: Tone | undefined | null): string {
  return tone ? ` t-${tone}` : '';
}

/** An explicit palette colour for items without a tone (segments, chart-like lists). */
export function paletteStyle(index: number): string {
  return `--t:var(--series-${index % 8})`;
}

/** A ratio clamped to 0–1 and written as a CSS percentage (an infinite ratio is full or empty). */
export function percentWidth(ratio: number): string {
  const clamped = Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio));
  return `${Math.round(clamped * 1000) / 10}%`;
}
