/** Figures: banner, stat, stats, bignumber, segments, progressList, scorecard. */
import type {
  BannerBlock,
  BignumberBlock,
  ProgressListBlock,
  ScorecardBlock,
  SegmentsBlock,
  StatBlock,
  StatsBlock,
  StatsItem,
  Tone,
} from '../spec-schema.js';
import { escapeAttr, escapeHtml, escapeScalar, fitAttributes, formatNumber, formatPercent } from './escape.js';
import { positiveShares } from './numbers.js';
import { describeTrend, renderSparkline } from './sparkline.js';
import { paletteStyle, percentWidth, toneClass } from './tone.js';

/** Drawn in a tone-coloured disc; plain characters every system font has (ⓘ is missing from Debian's). */
const BANNER_ICON: Record<Tone, string> = {
  neutral: 'i',
  info: 'i',
  accent: '★',
  positive: '✓',
  warning: '!',
  danger: '✕',
};

export function renderBanner(block: BannerBlock): string {
  const meta = (block.meta ?? [])
    .map((item) => `<div><dt>${escapeHtml(item.label)}</dt><dd>${escapeScalar(item.value)}</dd></div>`)
    .join('');
  return (
    `<div class="banner${toneClass(block.tone)}" role="note">` +
    `<span class="banner-icon" aria-hidden="true">${BANNER_ICON[block.tone]}</span>` +
    `<div class="banner-body"><p class="banner-headline">${escapeHtml(block.headline)}</p>` +
    (block.detail ? `<p class="banner-detail">${escapeHtml(block.detail)}</p>` : '') +
    (meta ? `<dl class="banner-meta">${meta}</dl>` : '') +
    `</div></div>`
  );
}

const DELTA_ARROW = { up: '▲', down: '▼', flat: '▬' } as const;
const DELTA_WORD = { up: 'up', down: 'down', flat: 'unchanged' } as const;

type StatFields = Pick<StatBlock, 'label' | 'value' | 'sublabel' | 'delta' | 'tone' | 'rail' | 'spark'>;

function renderStatBody(stat: StatFields): string {
  const parts: string[] = [];
  parts.push(`<div class="stat-label">${escapeHtml(stat.label)}</div>`);
  let delta = '';
  if (stat.delta) {
    const direction = stat.delta.direction;
    delta =
      ` <span class="delta d-${direction}${toneClass(stat.delta.tone ?? 'neutral')}">` +
      `<span aria-hidden="true">${DELTA_ARROW[direction]}</span><span class="sr-only">${DELTA_WORD[direction]}</span> ${escapeScalar(stat.delta.value)}</span>`;
  }
  parts.push(`<div class="stat-row"><span class="stat-value"${fitAttributes(stat.value)}>${escapeScalar(stat.value)}</span>${delta}</div>`);
  if (stat.sublabel) parts.push(`<div class="stat-sub">${escapeHtml(stat.sublabel)}</div>`);
  if (stat.spark && stat.spark.length > 0) {
    parts.push(`<div class="stat-spark">${renderSparkline(stat.spark, describeTrend(stat.spark, formatNumber))}</div>`);
  }
  if (stat.rail !== undefined) {
    parts.push(
      `<div class="rail" role="img" aria-label="${escapeAttr(`${Math.round(stat.rail * 100)}% of target`)}"><span style="width:${percentWidth(stat.rail)}"></span></div>`,
    );
  }
  return parts.join('');
}

export function renderStat(block: StatBlock): string {
  return `<div class="stat${toneClass(block.tone)}">${renderStatBody(block)}</div>`;
}

function renderStatsItem(item: StatsItem): string {
  if (item.hidden) return '';
  const classes = `stat${toneClass(item.tone)}${item.only ? ` only-${item.only}` : ''}`;
  const styles: string[] = [];
  if (item.colStart !== undefined) styles.push(`grid-column-start:${item.colStart}`);
  if (item.rowStart !== undefined) styles.push(`grid-row-start:${item.rowStart}`);
  if (item.align !== undefined) styles.push(`align-self:${item.align}`);
  const id = item.id ? ` id="${escapeAttr(item.id)}"` : '';
  const style = styles.length > 0 ? ` style="${styles.join(';')}"` : '';
  return `<div class="${classes}"${id}${style}>${renderStatBody(item)}</div>`;
}

export function renderStats(block: StatsBlock): string {
  const columns = block.columns ?? Math.min(4, Math.max(1, block.items.length));
  return `<div class="stats" style="--stat-cols:${columns}">${block.items.map(renderStatsItem).join('')}</div>`;
}

export function renderBignumber(block: BignumberBlock): string {
  return (
    `<div class="bignum${toneClass(block.tone)}">` +
    `<div class="bignum-value"${fitAttributes(block.value)}>${escapeScalar(block.value)}</div>` +
    (block.label ? `<div class="bignum-label">${escapeHtml(block.label)}</div>` : '') +
    (block.context ? `<div class="bignum-context">${escapeHtml(block.context)}</div>` : '') +
    `</div>`
  );
}

/** A share as text: "<1%" for a sliver, so it does not read as nothing. */
function shareText(share: number): string {
  return share > 0 && share < 0.01 ? '<1%' : formatPercent(share);
}

export function renderSegments(block: SegmentsBlock): string {
  const sum = block.segments.reduce((total, segment) => total + Math.max(0, segment.value), 0);
  const shareOf = positiveShares(block.segments.map((segment) => segment.value));
  const share = (value: number) => (shareOf ? shareOf(value) : 0);
  const dot = (tone: Tone | undefined, index: number) => (tone ? `<span class="dot t-${tone}"></span>` : `<span class="dot" style="${paletteStyle(index)}"></span>`);
  const description = block.segments.map((segment) => `${segment.label} ${formatNumber(segment.value)} (${shareText(share(segment.value))})`).join(', ');
  const bar = block.segments
    .map((segment, index) => {
      const width = percentWidth(share(segment.value));
      const tone = segment.tone ? `t-${segment.tone}` : '';
      const style = segment.tone ? `width:${width}` : `width:${width};${paletteStyle(index)}`;
      return `<span class="seg${tone ? ` ${tone}` : ''}" style="${style}"></span>`;
    })
    .join('');
  const legend = block.segments
    .map(
      (segment, index) =>
        `<li>${dot(segment.tone, index)}<span class="seg-label">${escapeHtml(segment.label)}</span>` +
        `<span class="seg-value">${formatNumber(segment.value)}</span><span class="seg-pct">${escapeHtml(shareText(share(segment.value)))}</span></li>`,
    )
    .join('');
  const total =
    block.total !== undefined || block.totalLabel
      ? `<div class="seg-total"><span class="seg-total-value"${fitAttributes(block.total ?? sum)}>${escapeScalar(block.total ?? sum)}</span> <span class="seg-total-label">${escapeHtml(block.totalLabel ?? 'total')}</span></div>`
      : '';
  return `${total}<div class="seg-bar" role="img" aria-label="${escapeAttr(description)}">${bar}</div><ul class="seg-legend">${legend}</ul>`;
}

/** A progress value's scale: explicit max; otherwise fractions are of 1 and anything larger of 100. */
function progressMax(value: number, max: number | undefined): number {
  if (max !== undefined && max > 0) return max;
  return value <= 1 ? 1 : 100;
}

export function renderProgressList(block: ProgressListBlock): string {
  const items = block.items
    .map((item) => {
      const max = progressMax(item.value, item.max);
      const ratio = item.value / max;
      const display = item.display ?? (item.max !== undefined ? `${formatNumber(item.value)} / ${formatNumber(item.max)}` : formatPercent(ratio));
      return (
        `<li class="prog${toneClass(item.tone)}"><div class="prog-head"><span class="prog-label">${escapeHtml(item.label)}</span>` +
        `<span class="prog-value">${escapeHtml(display)}</span></div>` +
        `<div class="bar" role="progressbar" aria-label="${escapeAttr(item.label)}" aria-valuemin="0" aria-valuemax="${max}" aria-valuenow="${item.value}"><span style="width:${percentWidth(ratio)}"></span></div></li>`
      );
    })
    .join('');
  return `<ul class="progress-list">${items}</ul>`;
}

function scoreTone(ratio: number): Tone {
  if (ratio >= 0.8) return 'positive';
  if (ratio >= 0.5) return 'warning';
  return 'danger';
}

function criterionMax(score: number, max: number | undefined, scale: number | undefined): number {
  if (max !== undefined && max > 0) return max;
  if (scale !== undefined && scale > 0) return scale;
  if (score <= 1) return 1;
  if (score <= 5) return 5;
  return score <= 10 ? 10 : 100;
}

export function renderScorecard(block: ScorecardBlock): string {
  const parts: string[] = [];
  const overall = block.overall;
  if (overall) {
    parts.push(
      `<div class="score-overall${toneClass(overall.tone ?? 'info')}"><div class="grade">${escapeScalar(overall.grade)}</div><div>` +
        (overall.label ? `<div class="score-overall-label">${escapeHtml(overall.label)}</div>` : '') +
        (overall.detail ? `<div class="score-overall-detail">${escapeHtml(overall.detail)}</div>` : '') +
        `</div></div>`,
    );
  }
  const rows = block.criteria
    .map((criterion) => {
      const max = criterionMax(criterion.score, criterion.max, block.scale);
      const ratio = criterion.score / max;
      const tone = criterion.tone ?? scoreTone(ratio);
      const weight = criterion.weight !== undefined ? `<span class="weight" title="Weight">×${formatNumber(criterion.weight)}</span>` : '';
      return (
        `<li class="crit t-${tone}"><div class="crit-head"><span class="crit-label">${escapeHtml(criterion.label)}</span>${weight}` +
        `<span class="crit-score">${formatNumber(criterion.score)}<span class="crit-max"> / ${formatNumber(max)}</span></span></div>` +
        `<div class="bar" role="img" aria-label="${escapeAttr(`${formatNumber(criterion.score)} of ${formatNumber(max)}`)}"><span style="width:${percentWidth(ratio)}"></span></div>` +
        (criterion.note ? `<p class="crit-note">${escapeHtml(criterion.note)}</p>` : '') +
        `</li>`
      );
    })
    .join('');
  parts.push(`<ul class="criteria">${rows}</ul>`);
  return parts.join('');
}
