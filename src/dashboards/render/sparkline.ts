/**
 * Sparklines as inline SVG: a few hundred bytes, no script, crisp in print. Drawn in a 100×28 box that
 * CSS stretches; `vector-effect` keeps the stroke width constant however wide the line is drawn.
 */
import { escapeAttr } from './escape.js';
import { extent } from './numbers.js';

const WIDTH = 100;
const HEIGHT = 28;
const PAD = 2;
/**
 * Points drawn at most: a table cell's sparkline is 76 px wide (src/web/styles.ts), and two points per pixel
 * (the lowest and highest of each stretch) show all it can. A table of 2,300 rows × 16 columns of
 * 200-point sparklines was a 146 MB page; every point past this only made it bigger.
 */
export const MAX_SPARK_POINTS = 120;

function round(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

/**
 * The indexes of the values to draw: all of them when they are few; otherwise the first, the last,
 * and the lowest and highest of each of (MAX_SPARK_POINTS - 2) / 2 equal stretches, in order.
 */
function indexesToDraw(values: readonly number[]): number[] {
  const count = values.length;
  if (count <= MAX_SPARK_POINTS) return Array.from({ length: count }, (_, index) => index);
  const buckets = (MAX_SPARK_POINTS - 2) / 2;
  const indexes = [0];
  for (let bucket = 0; bucket < buckets; bucket += 1) {
    const start = 1 + Math.floor((bucket * (count - 2)) / buckets);
    const end = 1 + Math.floor(((bucket + 1) * (count - 2)) / buckets);
    let low = start;
    let high = start;
    for (let index = start + 1; index < end; index += 1) {
      if ((values[index] ?? 0) < (values[low] ?? 0)) low = index;
      if ((values[index] ?? 0) > (values[high] ?? 0)) high = index;
    }
    if (low === high) indexes.push(low);
    else indexes.push(Math.min(low, high), Math.max(low, high));
  }
  indexes.push(count - 1);
  return indexes;
}

/** An accessible sparkline; the label describes the trend in words for screen readers. */
export function renderSparkline(values: readonly number[], label: string): string {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return '';
  const { min, max } = extent(finite) ?? { min: 0, max: 0 };
  // Halves: max - min of 1e308 and -1e308 is beyond a double, and Infinity / Infinity draws nothing.
  const halfRange = max / 2 - min / 2 || 1;
  const step = finite.length > 1 ? (WIDTH - PAD * 2) / (finite.length - 1) : 0;
  const points: string[] = [];
  for (const index of indexesToDraw(finite)) {
    const value = finite[index] ?? 0;
    const x = finite.length > 1 ? PAD + index * step : WIDTH / 2;
    const y = HEIGHT - PAD - ((value / 2 - min / 2) / halfRange) * (HEIGHT - PAD * 2);
    points.push(`${round(x)},${round(y)}`);
  }
  const line = points.join(' ');
  const area = `${PAD},${HEIGHT} ${line} ${round(finite.length > 1 ? WIDTH - PAD : WIDTH / 2)},${HEIGHT}`;
  return (
    `<svg class="spark" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${escapeAttr(label)}">` +
    `<polygon class="spark-area" points="${area}"/>` +
    `<polyline class="spark-line" points="${line}" vector-effect="non-scaling-stroke"/>` +
    `</svg>`
  );
}

/** "Trend of 6 values from 93.1 to 97.4, low 93.1, high 97.4": the words behind a sparkline. */
export function describeTrend(values: readonly number[], format: (value: number) => string): string {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return 'No data';
  const first = finite[0] ?? 0;
  const last = finite[finite.length - 1] ?? 0;
  const { min, max } = extent(finite) ?? { min: first, max: first };
  return `Trend of ${finite.length} values from ${format(first)} to ${format(last)}, low ${format(min)}, high ${format(max)}`;
}
