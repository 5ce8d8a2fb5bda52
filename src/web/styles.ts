/**
 * The one stylesheet of the web UI: light and dark themes as custom properties, the six tones, the
 * 24-column grid, every block kind, charts themed through their sentinel colours, and print rules.
 *
 * Layout responds to the width of `.page` (a size container) rather than the viewport, so the print
 * preview (`?print=1`, a page-wide column on a wide screen) lays out exactly like paper does.
 *
 * It lives with the pages that serve it (assets.ts), block rules included: the blocks' markup comes
 * from src/dashboards/render/, but their rules share this sheet's theme, its container queries and its
 * print rules, one cascade whose order matters, so the sheet stays whole rather than split by folder.
 */
import { sentinelVariables, themeVariables, TONES } from '../dashboards/render/theme-colors.js';

const LIGHT = [
  '--bg:#f4f5f7',
  '--surface:#ffffff',
  '--surface-2:#f8f9fb',
  '--sunken:#eceff3',
  '--border:#e3e6eb',
  '--border-strong:#cdd3dc',
  '--ink:#111827',
  '--ink-2:#454f5e',
  '--ink-3:#5b6473',
  '--link:#2257d6',
  '--shadow:0 1px 2px rgba(16,24,40,.04),0 1px 3px rgba(16,24,40,.05)',
  '--code-bg:#fbfcfd',
  '--hl-keyword:#cf222e',
  '--hl-string:#0a3069',
  '--hl-number:#0550ae',
  '--hl-comment:#636c76',
  '--hl-title:#8250df',
  '--hl-attr:#0550ae',
  '--hl-built-in:#953800',
  '--hl-meta:#57606a',
  'color-scheme:light',
  themeVariables('light'),
].join(';');

const DARK = [
  '--bg:#0c0e13',
  '--surface:#151922',
  '--surface-2:#191e28',
  '--sunken:#212734',
  '--border:#272e3b',
  '--border-strong:#384152',
  '--ink:#e7ebf1',
  '--ink-2:#b0b9c6',
  '--ink-3:#8793a4',
  '--link:#82aaff',
  '--shadow:none',
  '--code-bg:#11151c',
  '--hl-keyword:#ff7b72',
  '--hl-string:#a5d6ff',
  '--hl-number:#79c0ff',
  '--hl-comment:#8b949e',
  '--hl-title:#d2a8ff',
  '--hl-attr:#79c0ff',
  '--hl-built-in:#ffa657',
  '--hl-meta:#8b949e',
  'color-scheme:dark',
  themeVariables('dark'),
].join(';');

function toneClasses(): string {
  return TONES.map(
    (tone) =>
      `.t-${tone}{--t:var(--${tone});--t-ink:color-mix(in srgb,var(--${tone}) 62%,var(--ink));--t-soft:color-mix(in srgb,var(--${tone}) 13%,transparent);--t-line:color-mix(in srgb,var(--${tone}) 38%,transparent)}`,
  ).join('\n');
}

/** Chart SVGs carry sentinel colours; these rules paint them with the theme's. */
function chartColorRules(): string {
  const rules = sentinelVariables().map(
    ({ sentinel, variable }) => `.chart-svg [fill="${sentinel}"]{fill:var(${variable})}.chart-svg [stroke="${sentinel}"]{stroke:var(${variable})}`,
  );
  // ECharts fills line symbols and pie borders with white: the card's surface in either theme.
  rules.push('.chart-svg [fill="#fff"],.chart-svg [fill="#ffffff"]{fill:var(--chart-surface)}');
  // ECharts' own defaults, for parts only a spec's `option` switches on (mark lines, titles, labels).
  rules.push('.chart-svg [fill="#333"],.chart-svg [fill="#464646"]{fill:var(--chart-text)}');
  rules.push('.chart-svg [fill="#6E7079"],.chart-svg [fill="#6e7079"]{fill:var(--chart-muted)}');
  rules.push('.chart-svg [stroke="#fff"],.chart-svg [stroke="rgb(255,255,255)"]{stroke:var(--chart-surface)}');
  rules.push('.chart-svg [stroke="#E0E6F1"],.chart-svg [stroke="#e0e6f1"]{stroke:var(--chart-grid)}');
  return rules.join('\n');
}

const DARK_SELECTORS = 'html[data-theme=dark]';

/**
 * Print rules, written once and applied twice: under `@media print`, and under `.print-preview` for
 * the on-screen preview.
 */
/** Kinds that often run longer than a page, and may break across pages; short lists (steps, a timeline, links) move whole. */
const BREAKABLE_BLOCKS = '.k-table,.k-prose,.k-list,.k-comparison,.k-statusMatrix,.k-code';

function printRules(scope: string): string {
  const s = (selectors: string) =>
    selectors
      .split(',')
      .map((selector) => `${scope}${selector.trim()}`)
      .join(',');
  return [
    `${s('.skip-link,.topbar,.archive-bar,.update-bar,.sec-anchor,.tbl-tools,.copy-btn,.chart-data,.toc,.only-screen,.tbl-empty,.tbl-more')}{display:none!important}`,
    `${s('.page')}{padding:0;max-width:none}`,
    `${s('.blk,.hl,.sec-head,.callout,.banner,.pull-quote,.fig,.tbl tr,.step,.check,.tl-event,.person,.li,.crit,.prog,.dash-head')}{break-inside:avoid}`,
    `${s(`${BREAKABLE_BLOCKS},.sec`)}{break-inside:auto}`,
    // A block that breaks is printed without its card: a card would leave an empty frame at the foot of
    // a page when its title moves over with its first rows.
    `${s(BREAKABLE_BLOCKS)}{border-color:transparent;border-radius:0;padding:0;background:none}`,
    `${s('.sec-head,.heading,.doc-title,.blk-title,.tbl-tools')}{break-after:avoid}`,
    `${s('.blk')}{box-shadow:none}`,
    `${s('.tbl-scroll,.code,.chart-data-scroll')}{max-height:none!important;overflow:visible!important}`,
    `${s('.tbl-scroll')}{-webkit-mask-image:none!important;mask-image:none!important}`,
    // Paper does not scroll: a wide table fits the page's width by wrapping its text cells anywhere;
    // numbers, and the words of its headings, stay whole.
    `${s('.tbl')}{width:100%!important;font-size:11px}`,
    `${s('.tbl td')}{white-space:normal!important;overflow-wrap:anywhere}`,
    `${s('.tbl th')}{white-space:normal!important;overflow-wrap:break-word}`,
    `${s('.tbl td.num')}{white-space:nowrap!important;overflow-wrap:normal}`,
    `${s('.tbl th,.tbl td')}{padding-left:6px;padding-right:6px}`,
    `${s('.tbl thead th')}{font-size:10px;letter-spacing:.02em}`,
    `${s('.th-sort::after')}{display:none}`,
    `${s('.tbl.wide')}{table-layout:fixed;font-size:10px}`,
    `${s('.tbl.wide th,.tbl.wide td,.tbl.wide .num')}{white-space:normal!important;overflow-wrap:anywhere;padding-left:3px;padding-right:3px}`,
    `${s('.capped thead th')}{position:static}`,
    `${s('.code code')}{white-space:pre-wrap;overflow-wrap:anywhere;min-width:0}`,
    `${s('.chart .v-narrow')}{display:none!important}`,
    `${s('.chart .v-wide')}{display:block!important}`,
    `${s('.chart.awaits-wide .v-narrow')}{display:block!important}`,
    `${s('.chart.awaits-wide .v-wide')}{display:none!important}`,
    `${s('.dash-foot')}{margin-top:20px}`,
    `${s('.layout-report')}{max-width:none}`,
    `${s('.html-frame')}{break-inside:avoid}`,
  ].join('\n');
}

const BASE = String.raw`
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 Inter,ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-font-smoothing:antialiased;overflow-wrap:break-word}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
a{color:var(--link);text-decoration:none}
a:hover{text-decoration:underline}
/* Links inside running text are underlined too: colour alone does not tell them apart (WCAG 1.4.1). */
.prose a,.callout-body a,.dash-foot a{text-decoration:underline;text-decoration-thickness:1px;text-underline-offset:2px}
code,kbd,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace}
:focus-visible{outline:2px solid var(--info);outline-offset:2px;border-radius:4px}
.skip-link{position:absolute;left:12px;top:-48px;z-index:100;padding:8px 14px;border-radius:8px;background:var(--surface);color:var(--ink);border:1px solid var(--border-strong);font-weight:600;text-decoration:none}
.skip-link:focus{top:10px}
.sr-only{position:absolute!important;left:0;top:0;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.sep{margin:0 .45em;color:var(--border-strong)}
[hidden]{display:none!important}
bdi{unicode-bidi:isolate}

/* top bar */
.topbar{position:sticky;top:0;z-index:20;background:color-mix(in srgb,var(--bg) 86%,transparent);backdrop-filter:saturate(1.4) blur(10px);-webkit-backdrop-filter:saturate(1.4) blur(10px);border-bottom:1px solid var(--border)}
.topbar-in{max-width:1280px;margin:0 auto;padding:9px 32px;display:flex;align-items:center;gap:14px;min-height:52px}
.brand{display:flex;align-items:center;gap:8px;font-weight:700;color:var(--ink);letter-spacing:-.01em}
.brand:hover{text-decoration:none}
.brand-mark{width:22px;height:22px;border-radius:6px;background:linear-gradient(135deg,var(--accent),var(--info));display:grid;place-items:center;color:#fff;font-size:12px;font-weight:800}
.crumbs{display:flex;align-items:center;gap:8px;min-width:0;font-size:13.5px;color:var(--ink-3)}
.crumbs a{color:var(--ink-2);white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0}
.crumbs .sep{flex:none}
.crumbs .here{color:var(--ink);font-weight:550;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.topbar-actions{margin-left:auto;display:flex;align-items:center;gap:6px;flex:none}
.topbar-actions form{margin:0}
.btn{display:inline-flex;align-items:center;justify-content:center;gap:6px;height:32px;padding:0 12px;border-radius:8px;border:1px solid var(--border-strong);background:var(--surface);color:var(--ink);font:inherit;font-size:13px;font-weight:550;cursor:pointer;white-space:nowrap}
.btn:hover{text-decoration:none;background:var(--surface-2)}
.btn-primary{background:var(--ink);border-color:var(--ink);color:var(--bg);height:38px;width:100%;font-size:14px}
.btn-primary:hover{background:color-mix(in srgb,var(--ink) 88%,var(--bg))}
.btn svg{width:16px;height:16px;flex:none;fill:none;stroke:currentColor;stroke-width:1.8;stroke-linecap:round;stroke-linejoin:round}
.icon-btn{width:32px;padding:0}
.i-sun{display:none}
.btn-label{display:inline}

/* page */
.page{max-width:1280px;margin:0 auto;padding:28px 32px 56px;container:page/inline-size}
.empty-note{color:var(--ink-3)}
.preview-bar{display:none}
.archive-bar{display:flex;flex-wrap:wrap;align-items:center;gap:8px 10px;max-width:1216px;margin:20px auto 0;padding:10px 12px 10px 16px;border:1px solid color-mix(in srgb,var(--warning) 45%,var(--border));border-radius:10px;background:color-mix(in srgb,var(--warning) 9%,var(--surface));font-size:13.5px}
.archive-bar p{flex:1 1 260px;margin:0}
.archive-bar .btn{width:auto;height:32px;font-size:13px;flex:none}
.update-bar{position:fixed;right:16px;bottom:16px;z-index:30;display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px;max-width:min(440px,calc(100vw - 32px));padding:12px 12px 12px 16px;border:1px solid var(--border-strong);border-radius:12px;background:var(--surface);box-shadow:0 12px 32px -10px rgba(16,24,40,.35);font-size:13.5px}
.update-bar p{flex:1 1 200px;margin:0}
.update-bar .btn{width:auto;height:32px;font-size:13px;flex:none}

/* version history */
.versions{list-style:none;margin:0;padding:0;border:1px solid var(--border);border-radius:12px;background:var(--surface);overflow:hidden}
.versions li{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 14px;padding:10px 16px;border-top:1px solid var(--border)}
.versions li:first-child{border-top:0}
.versions a{font-weight:600}
.versions .when{color:var(--ink-3);font-size:13px;margin-left:auto}
.versions .current-tag{font-size:11px;font-weight:650;text-transform:uppercase;letter-spacing:.05em;padding:0 7px;border-radius:999px;background:var(--sunken);color:var(--ink-2)}
.versions-more{margin:12px 0 0;color:var(--ink-3);font-size:13px}

/* dashboard header */
.dash-head{margin:0 0 30px}
.dash-head::before{content:"";display:block;width:36px;height:4px;border-radius:2px;background:var(--t,var(--accent));margin:0 0 14px}
/* An unbroken string (a path, a hash, a URL) breaks anywhere rather than widening a dashboard past the screen;
   a table keeps its columns' widths and scrolls instead (on paper its cells wrap: the print rules). */
.dash{overflow-wrap:anywhere}
.dash .tbl,.dash .prose table{overflow-wrap:break-word}
.dash-kicker{display:flex;flex-wrap:wrap;align-items:center;font-size:12.5px;color:var(--ink-3)}
.dash-group{color:var(--t-ink,var(--ink-2));font-weight:650;text-transform:uppercase;letter-spacing:.07em;font-size:11.5px}
.dash-title{font-size:30px;line-height:1.18;letter-spacing:-.022em;margin:6px 0 6px;font-weight:720}
.dash-subtitle{font-size:16px;line-height:1.5;color:var(--ink-2);margin:0;max-width:80ch}
.dash-meta{display:flex;flex-wrap:wrap;gap:6px 22px;margin:14px 0 0;font-size:13px}
.meta-item{display:flex;gap:6px;min-width:0}
.meta-item dt{color:var(--ink-3)}
.meta-item dd{margin:0;font-weight:600;min-width:0;overflow-wrap:anywhere}
.meta-item[class*="t-"] dd{color:var(--t-ink)}
.highlights{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:14px;margin:20px 0 0}
.hl{position:relative;overflow:hidden;background:var(--surface);border:1px solid var(--border);border-radius:12px;padding:14px 18px 15px;box-shadow:var(--shadow)}
.hl::before{content:"";position:absolute;left:0;top:0;bottom:0;width:3px;background:var(--t,var(--border-strong))}
.hl-label{font-size:12.5px;color:var(--ink-3);font-weight:500}
.hl-value{font-size:26px;line-height:1.2;font-weight:720;letter-spacing:-.02em;font-variant-numeric:tabular-nums;margin-top:2px}
.hl[class*="t-"] .hl-value{color:var(--t-ink)}
.dash-agent{margin:16px 0 0;font-size:12.5px;color:var(--ink-3)}
.dash-agent p{margin:0}
.dash-agent strong{color:var(--ink-2)}
.dash-agent code{font-size:11.5px;background:var(--sunken);padding:1px 5px;border-radius:4px;color:var(--ink-2)}
.dash-context{margin-top:6px}
.dash-context summary{cursor:pointer;width:max-content;color:var(--ink-3)}
.dash-context p{margin:6px 0 0;max-width:80ch;color:var(--ink-2);white-space:pre-line}
.dash-foot{margin:44px 0 0;padding-top:16px;border-top:1px solid var(--border);font-size:12px;color:var(--ink-3)}
.toc{border:1px solid var(--border);border-radius:12px;padding:16px 20px;margin:0 0 32px;background:var(--surface)}
.toc-title{font-size:11.5px;text-transform:uppercase;letter-spacing:.07em;color:var(--ink-3);margin:0 0 8px;font-weight:650}
.toc ol{margin:0;padding-left:1.4em;columns:2;column-gap:36px}
.toc li{padding:3px 0;break-inside:avoid}
.toc ol.self-numbered{list-style:none;padding-left:0}

/* sections and the grid */
.sec{margin:0 0 34px}
.sec-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 14px;margin:0 0 12px}
.sec-title{font-size:17px;line-height:1.3;font-weight:680;letter-spacing:-.012em;margin:0}
/* A title may be one long path or identifier: it breaks anywhere rather than widen the page. */
.dash-title,.sec-title,.blk-title,.headline,.heading-text,.sec-note{overflow-wrap:anywhere;min-width:0}
/* a section reached by its link stops below the sticky top bar */
.sec{scroll-margin-top:64px}
.sec-anchor{margin-left:-6px;color:var(--ink-3);font-size:15px;font-weight:500;opacity:0;transition:opacity .12s}
.sec-head:hover .sec-anchor,.sec-anchor:focus-visible{opacity:1;text-decoration:none}
@media (hover:none){.sec-anchor{display:none}}
.sec-note{margin:0;color:var(--ink-3);font-size:13px}
.grid{display:grid;grid-template-columns:repeat(var(--cols),minmax(0,1fr));gap:var(--gap)}
.grid>.blk{grid-column:var(--gc,1/-1);grid-row:var(--gr,auto)}
.flow>.blk{margin:0 0 18px}
.flow>.blk.bare{margin-bottom:14px}

/* blocks */
.blk{min-width:0;display:flex;flex-direction:column;background:var(--surface);border:1px solid var(--border);border-radius:12px;padding:18px;box-shadow:var(--shadow)}
.blk.bare{background:none;border:0;box-shadow:none;padding:0}
.blk-title{font-size:13.5px;line-height:1.35;font-weight:650;margin:0 0 12px;color:var(--ink)}
.blk-empty{margin:0;padding:18px 0;color:var(--ink-3);text-align:center}
.blk-caption{margin:auto 0 0;padding-top:12px;font-size:12.5px;color:var(--ink-3)}
.ta-center{text-align:center}
.ta-left{text-align:left}
.eyebrow{font-size:11.5px;font-weight:700;letter-spacing:.08em;text-transform:uppercase;color:var(--t-ink,var(--accent))}

/* banner */
.banner{display:flex;gap:14px;align-items:flex-start;padding:16px 18px;border-radius:12px;background:var(--t-soft);border:1px solid var(--t-line)}
.banner-icon{flex:none;width:28px;height:28px;border-radius:50%;background:var(--t);color:var(--surface);display:grid;place-items:center;font-weight:800;font-size:14px}
.banner-body{min-width:0}
.banner-headline{margin:2px 0 0;font-size:16px;line-height:1.4;font-weight:650}
.banner-detail{margin:4px 0 0;color:var(--ink-2)}
.banner-meta{display:flex;flex-wrap:wrap;gap:4px 18px;margin:10px 0 0;font-size:12.5px}
.banner-meta div{display:flex;gap:6px;min-width:0}
.banner-meta dt{color:var(--ink-3)}
.banner-meta dd{margin:0;font-weight:600;min-width:0;overflow-wrap:anywhere}

/* stat, stats, bignumber */
.stats{display:grid;grid-template-columns:repeat(var(--stat-cols),minmax(0,1fr));gap:16px 24px}
.stats>.stat+.stat{border-left:1px solid var(--border);padding-left:24px}
.stat{min-width:0}
.stat-label{font-size:12.5px;color:var(--ink-3);font-weight:550}
.stat-row{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px;margin-top:2px}
.stat-value{font-size:28px;line-height:1.15;font-weight:720;letter-spacing:-.022em;font-variant-numeric:tabular-nums}
.stat[class*="t-"] .stat-value{color:var(--t-ink)}
.stat.t-neutral .stat-value{color:var(--ink)}
.delta{display:inline-flex;align-items:center;gap:4px;max-width:100%;overflow:hidden;font-size:12px;font-weight:650;color:var(--t-ink);background:var(--t-soft);padding:1px 7px;border-radius:999px;white-space:nowrap}
.delta [aria-hidden]{font-size:9px}
.stat-sub{font-size:12px;color:var(--ink-3);margin-top:2px}
.stat-spark{height:34px;margin-top:10px}
.spark{display:block;width:100%;height:100%;overflow:visible}
.spark-line{fill:none;stroke:var(--t,var(--series-0));stroke-width:1.6;stroke-linejoin:round;stroke-linecap:round}
.spark-area{fill:var(--t,var(--series-0));opacity:.12}
.rail{height:5px;background:var(--sunken);border-radius:3px;margin-top:12px;overflow:hidden}
.rail>span,.bar>span{display:block;height:100%;background:var(--t,var(--info));border-radius:inherit}
.bignum{display:flex;flex-direction:column;justify-content:center;height:100%}
.bignum-value{font-size:46px;line-height:1.05;font-weight:760;letter-spacing:-.035em;font-variant-numeric:tabular-nums;color:var(--t-ink,var(--ink))}
.bignum-label{font-size:14px;color:var(--ink-2);margin-top:8px;font-weight:550}
.bignum-context{font-size:12.5px;color:var(--ink-3);margin-top:2px}
/* A headline value is never broken across lines; its font shrinks to the width of its box instead. */
.blk,.hl,.stat{container-type:inline-size}
.hl-value[data-fit],.stat-value[data-fit],.bignum-value[data-fit],.seg-total-value[data-fit]{white-space:nowrap;font-size:clamp(13px,calc(100cqi / (var(--chars) * .62)),var(--fit-max))}
.hl-value{--fit-max:26px}
.stat-value{--fit-max:28px}
.bignum-value{--fit-max:46px}
.seg-total-value{--fit-max:24px}

/* segments, progress, scorecard */
.seg-total{margin:0 0 10px}
.seg-total-value{font-size:24px;font-weight:720;letter-spacing:-.02em;font-variant-numeric:tabular-nums}
.seg-total-label{color:var(--ink-3);font-size:13px}
.seg-bar{display:flex;gap:2px;height:12px;border-radius:6px;overflow:hidden;background:var(--sunken)}
.seg{background:var(--t);min-width:3px}
.seg-legend,.progress-list,.criteria{list-style:none;margin:0;padding:0}
.seg-legend{display:grid;gap:7px;margin-top:14px}
.seg-legend li{display:flex;align-items:center;gap:9px;font-size:13px}
.dot{display:inline-block;flex:none;width:10px;height:10px;border-radius:3px;background:var(--t,var(--neutral))}
.seg-label{flex:1;min-width:0}
.seg-value{font-weight:650;font-variant-numeric:tabular-nums}
.seg-pct{width:3.4em;text-align:right;color:var(--ink-3);font-variant-numeric:tabular-nums}
.progress-list{display:grid;gap:13px}
.prog-head,.crit-head{display:flex;align-items:baseline;gap:10px;margin-bottom:6px;font-size:13px}
.prog-label,.crit-label{flex:1;min-width:0}
.prog-value{color:var(--ink-2);font-variant-numeric:tabular-nums;font-weight:600}
.bar{height:7px;background:var(--sunken);border-radius:4px;overflow:hidden}
.score-overall{display:flex;gap:14px;align-items:center;margin:0 0 16px;padding:0 0 16px;border-bottom:1px solid var(--border)}
.grade{flex:0 1 auto;min-width:58px;max-width:45%;min-height:58px;padding:0 10px;border-radius:14px;background:var(--t-soft);color:var(--t-ink);display:grid;place-items:center;font-size:26px;font-weight:780;letter-spacing:-.02em}
.score-overall-label{font-weight:650;font-size:15px}
.score-overall-detail{color:var(--ink-2);font-size:13px;margin-top:2px}
.criteria{display:grid;gap:14px}
.crit-score{font-weight:700;font-variant-numeric:tabular-nums}
.crit-max{color:var(--ink-3);font-weight:500}
.weight{font-size:11px;color:var(--ink-3);background:var(--sunken);border-radius:4px;padding:0 5px}
.crit-note{margin:6px 0 0;font-size:12.5px;color:var(--ink-3)}

/* charts */
.chart{margin:0;min-width:0}
.chart-svg svg{display:block;width:100%;height:auto}
.chart .v-narrow{display:none}
.chart.awaits-wide .v-narrow{display:block}
.chart.awaits-wide .v-wide{display:none}
.chart-gauge .chart-img{max-width:380px;margin:0 auto;width:100%}
.chart-error{display:grid;place-items:center;border:1px dashed var(--border-strong);border-radius:10px;color:var(--ink-3);font-size:13px;padding:16px;text-align:center}
.chart-data{margin-top:8px;font-size:12px}
.chart-data summary{cursor:pointer;width:max-content;color:var(--ink-3);user-select:none}
.chart-data-scroll{max-height:260px;overflow:auto;margin-top:8px;border:1px solid var(--border);border-radius:8px}
.chart-csv{display:inline-block;margin-top:6px;color:var(--ink-3)}
.heat-scale{display:flex;align-items:center;justify-content:flex-end;gap:8px;margin-top:6px;font-size:11px;color:var(--ink-3);font-variant-numeric:tabular-nums}
.heat-ramp{width:110px;height:8px;border-radius:4px;background:linear-gradient(90deg,color-mix(in srgb,var(--info) 8%,transparent),color-mix(in srgb,var(--info) 80%,transparent))}

/* tables */
.tbl-tools{display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px;margin:0 0 10px}
.tbl-csv{margin-left:auto;height:28px;padding:0 10px;font-size:12px;color:var(--ink-2)}
.tbl-csv:hover{text-decoration:none;color:var(--ink)}
.tbl-search{flex:1 1 200px;max-width:340px;font:inherit;font-size:13px;height:34px;padding:0 10px 0 32px;border:1px solid var(--border-strong);border-radius:8px;color:var(--ink);background:var(--surface) url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='16' height='16' fill='none' stroke='%23889' stroke-width='2' stroke-linecap='round'%3E%3Ccircle cx='7' cy='7' r='5'/%3E%3Cpath d='m11 11 3.5 3.5'/%3E%3C/svg%3E") no-repeat 10px center}
.tbl-search:focus{outline:2px solid color-mix(in srgb,var(--info) 45%,transparent);outline-offset:0;border-color:var(--info)}
.tbl-count{font-size:12px;color:var(--ink-3);font-variant-numeric:tabular-nums}
.tbl-empty{margin:10px 0 0;color:var(--ink-3);font-size:13px}
/* Long tables show their first 200 rows (blocks-table.ts) on screens only: paper and its preview get every row. */
@media screen{html:not(.print-preview) .tbl-all:not(:checked)~.tbl-scroll .tbl.paged:not(.filtered) tbody tr:nth-child(n+201),html:not(.print-preview) .tbl.paged tbody tr.over-page{display:none}}
.tbl-all{position:absolute;width:1px;height:1px;opacity:0;pointer-events:none}
.tbl-all:checked~.tbl-more{display:none}
.tbl-all:focus-visible~.tbl-more label{outline:2px solid var(--info);outline-offset:2px}
.tbl-more{display:flex;flex-wrap:wrap;align-items:center;gap:8px 14px;margin-top:12px;font-size:12.5px;color:var(--ink-3)}
.tbl-scroll{position:relative;overflow-x:auto;min-width:0;max-width:100%}
.tbl-scroll.capped{overflow:auto;border:1px solid var(--border);border-radius:8px}
.tbl-scroll.more-right{-webkit-mask-image:linear-gradient(to right,#000 calc(100% - 40px),transparent);mask-image:linear-gradient(to right,#000 calc(100% - 40px),transparent)}
.tbl-scroll.more-left{-webkit-mask-image:linear-gradient(to left,#000 calc(100% - 40px),transparent);mask-image:linear-gradient(to left,#000 calc(100% - 40px),transparent)}
.tbl-scroll.more-left.more-right{-webkit-mask-image:linear-gradient(to right,transparent,#000 40px,#000 calc(100% - 40px),transparent);mask-image:linear-gradient(to right,transparent,#000 40px,#000 calc(100% - 40px),transparent)}
.tbl{width:100%;border-collapse:separate;border-spacing:0;font-size:13px}
.tbl th,.tbl td{padding:8px 12px;text-align:left;vertical-align:top;border-bottom:1px solid var(--border)}
.tbl thead th{font-size:11.5px;font-weight:650;color:var(--ink-3);letter-spacing:.03em;text-transform:uppercase;white-space:nowrap;background:var(--surface);vertical-align:bottom}
.capped thead th{position:sticky;top:0;z-index:1;background:var(--surface-2);box-shadow:inset 0 -1px var(--border)}
.tbl tbody tr:last-child>*{border-bottom:0}
.tbl.striped tbody tr:nth-child(even){background:var(--surface-2)}
.tbl.striped.filtered tbody tr:nth-child(even){background:none}
.th-sort{all:unset;cursor:pointer;display:inline-flex;align-items:center;gap:4px;border-radius:4px}
.th-sort:focus-visible{outline:2px solid var(--info);outline-offset:2px}
.th-sort::after{content:"";width:8px;font-size:8px;color:var(--ink-3)}
th[aria-sort=ascending] .th-sort::after{content:"▲"}
th[aria-sort=descending] .th-sort::after{content:"▼"}
.tbl tbody tr:hover{background:color-mix(in srgb,var(--sunken) 70%,transparent)}
.tbl tfoot td{font-weight:650;border-top:1px solid var(--border-strong);border-bottom:0;background:var(--surface-2)}
.tbl .r{text-align:right}
.tbl .c{text-align:center}
.tbl .num{font-variant-numeric:tabular-nums;white-space:nowrap}
.tbl .rn{width:1%;text-align:right;color:var(--ink-3);font-variant-numeric:tabular-nums;white-space:nowrap}
.tbl tbody th{font-weight:550}
.tbl.compact th,.tbl.compact td{padding:5px 10px}
.nil{color:var(--ink-3)}
.badge,.delta-pill{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:650;background:var(--t-soft);color:var(--t-ink);white-space:nowrap}
.tone-text{color:var(--t-ink);font-weight:600}
.cell-bar{display:flex;align-items:center;gap:8px}
.cell-bar-value{flex:1;font-variant-numeric:tabular-nums}
.cell-bar-track{display:inline-block;width:56px;height:6px;border-radius:3px;background:var(--sunken);overflow:hidden}
.cell-bar-track>span{display:block;height:100%;background:var(--t,var(--info))}
td .spark{display:inline-block;vertical-align:middle;width:76px;height:20px;margin-left:6px}
.th-caption{display:block;font-weight:450;text-transform:none;letter-spacing:0;color:var(--ink-3);font-size:11.5px}
.row-note{display:block;font-weight:400;font-size:12px;color:var(--ink-3);margin-top:1px}
.comparison tbody th{width:40%}
.comparison tbody tr[class*="t-"]>*{color:var(--t-ink)}
.comparison tbody tr[class*="t-"]>th{box-shadow:inset 3px 0 var(--t)}
.sm-cell{display:inline-grid;place-items:center;width:14px;height:14px;border-radius:50%;background:var(--t);vertical-align:middle}
.sm-cell.labelled{width:auto;min-width:34px;height:22px;padding:0 8px;border-radius:6px;background:var(--t-soft);color:var(--t-ink);border:1px solid var(--t-line);font-size:11.5px;font-weight:650}
.sm-cell.empty{background:none;color:var(--ink-3)}
.status-matrix td{vertical-align:middle}
.status-matrix abbr{text-decoration:none;cursor:help}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;margin:12px 0 0;padding:0;font-size:12px;color:var(--ink-2)}
.legend li{display:flex;align-items:center;gap:6px}
.legend .dot{border-radius:50%}

/* lists */
.item-list,.timeline,.steps,.checklist,.links,.people,.pills,.footnotes{list-style:none;margin:0;padding:0}
.item-list>li{position:relative;padding:10px 0 10px 16px;border-bottom:1px solid var(--border)}
.item-list>li:first-child{padding-top:0}
.item-list>li:last-child{border-bottom:0;padding-bottom:0}
.item-list>li::before{content:"";position:absolute;left:1px;top:calc(10px + .5em);width:6px;height:6px;border-radius:50%;background:var(--t,var(--border-strong))}
.item-list>li:first-child::before{top:.5em}
.item-list.ordered{counter-reset:item}
.item-list.ordered>li{counter-increment:item;padding-left:30px}
.item-list.ordered>li::before{content:counter(item);width:20px;height:20px;top:8px;left:0;display:grid;place-items:center;font-size:11px;font-weight:700;color:var(--t-ink,var(--ink-2));background:var(--t-soft,var(--sunken))}
.item-list.ordered>li:first-child::before{top:-2px}
.li-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 10px}
.li-title{flex:1 1 12em;min-width:0;font-weight:600;overflow-wrap:anywhere}
.li-meta{flex:0 1 auto;min-width:0;font-size:12px;color:var(--ink-3);overflow-wrap:anywhere}
.li-detail{margin:2px 0 0;color:var(--ink-2);font-size:13px}
.timeline{position:relative;padding-left:24px}
.timeline::before{content:"";position:absolute;left:6px;top:8px;bottom:8px;width:2px;border-radius:1px;background:var(--border)}
.tl-event{position:relative;padding:0 0 16px}
.tl-event:last-child{padding-bottom:0}
.tl-dot{position:absolute;left:-24px;top:3px;width:14px;height:14px;border-radius:50%;background:var(--surface);border:3px solid var(--t)}
.tl-when{font-size:12px;color:var(--ink-3);font-variant-numeric:tabular-nums}
.tl-title{font-weight:600}
.tl-detail{margin:2px 0 0;font-size:13px;color:var(--ink-2)}
.fields{display:grid;grid-template-columns:repeat(var(--field-cols),minmax(0,1fr));gap:14px 22px;margin:0}
.field{min-width:0}
.field dt{font-size:12px;color:var(--ink-3);margin:0 0 2px}
.field dd{margin:0;font-weight:550;overflow-wrap:anywhere;white-space:pre-line}
.field[class*="t-"] dd{color:var(--t-ink)}
.fields.inline{gap:0 22px}
.fields.inline .field{display:flex;justify-content:space-between;align-items:baseline;gap:16px;padding:8px 0;border-bottom:1px dashed var(--border)}
.fields.inline .field dd{text-align:right}
.pills{display:flex;flex-wrap:wrap;gap:8px}
.pill{display:inline-flex;align-items:center;gap:7px;max-width:100%;overflow-wrap:anywhere;padding:3px 11px;border-radius:999px;font-size:12.5px;font-weight:550;color:var(--t-ink);background:var(--t-soft);border:1px solid var(--t-line)}
.pill-value{font-weight:750;font-variant-numeric:tabular-nums}
.pills.solid .pill{background:var(--t);color:var(--surface);border-color:transparent}
.people{display:grid;grid-template-columns:repeat(var(--people-cols),minmax(0,1fr));gap:16px 20px}
.person{display:flex;gap:12px;align-items:flex-start;min-width:0}
.avatar{position:relative;flex:none;width:40px;height:40px;border-radius:50%;overflow:hidden;display:grid;place-items:center;background:var(--t-soft);color:var(--t-ink);font-weight:700;font-size:14px;letter-spacing:.02em;border:1px solid var(--t-line)}
.avatar img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
.person-body{min-width:0}
.person-name{font-weight:650;display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px;overflow-wrap:anywhere}
.person-status{font-size:11px;font-weight:650;padding:0 7px;border-radius:999px;background:var(--t-soft);color:var(--t-ink)}
.person-role{font-size:13px;color:var(--ink-2)}
.person-detail{font-size:12.5px;color:var(--ink-3);margin-top:2px}
.step{position:relative;display:flex;gap:12px;padding-bottom:16px}
.step:last-child{padding-bottom:0}
.step:not(:last-child)::before{content:"";position:absolute;left:13px;top:32px;bottom:4px;width:2px;border-radius:1px;background:var(--border)}
.s-done:not(:last-child)::before{background:color-mix(in srgb,var(--positive) 55%,var(--border))}
.step-marker{flex:none;width:28px;height:28px;border-radius:50%;display:grid;place-items:center;font-size:12px;font-weight:750;border:2px solid var(--border-strong);color:var(--ink-3);background:var(--surface)}
.s-done .step-marker{background:var(--positive);border-color:var(--positive);color:var(--surface)}
.s-active .step-marker{border-color:var(--info);color:var(--info);box-shadow:0 0 0 4px color-mix(in srgb,var(--info) 18%,transparent)}
.s-blocked .step-marker{background:var(--danger);border-color:var(--danger);color:var(--surface)}
.step-body{min-width:0;padding-top:3px}
.step-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px}
.step-title{font-weight:600}
.s-todo .step-title{color:var(--ink-2)}
.step-status{font-size:11px;font-weight:650;text-transform:uppercase;letter-spacing:.05em;color:var(--ink-3)}
.s-active .step-status{color:var(--info)}
.s-done .step-status{color:color-mix(in srgb,var(--positive) 62%,var(--ink))}
.s-blocked .step-status{color:var(--danger)}
.step-meta{font-size:12px;color:var(--ink-3);margin-left:auto}
.step-detail{margin:2px 0 0;font-size:13px;color:var(--ink-2)}
.check-progress{margin:0 0 12px}
.check-progress-text{display:flex;align-items:baseline;gap:8px;margin-bottom:6px;font-size:13px;color:var(--ink-2)}
.check-progress-text strong{color:var(--ink)}
.check-pct{margin-left:auto;font-weight:650;font-variant-numeric:tabular-nums}
.check{display:flex;gap:10px;padding:8px 0;border-bottom:1px solid var(--border)}
.check:last-child{border-bottom:0;padding-bottom:0}
.check-box{flex:none;width:18px;height:18px;margin-top:1px;border-radius:5px;border:1.5px solid var(--border-strong);display:grid;place-items:center;font-size:11px;font-weight:800;line-height:1}
.c-done .check-box{background:var(--positive);border-color:var(--positive);color:var(--surface)}
.c-done .check-label{color:var(--ink-3);text-decoration:line-through;text-decoration-color:var(--border-strong)}
.c-blocked .check-box{border-color:var(--danger);color:var(--danger)}
.c-na .check-box{border-style:dashed;color:var(--ink-3)}
.c-na .check-label{color:var(--ink-3)}
.check-body{min-width:0;flex:1}
.check-head{display:flex;align-items:baseline;gap:10px}
.check-label{flex:1;min-width:0}
.check-meta{font-size:11.5px;color:var(--ink-3);background:var(--sunken);padding:0 6px;border-radius:4px}
.check-detail{margin:2px 0 0;font-size:12.5px;color:var(--ink-3)}
.links{display:grid;grid-template-columns:repeat(var(--link-cols),minmax(0,1fr));gap:10px}
.link{position:relative;padding:10px 12px 10px 14px;border:1px solid var(--border);border-radius:10px;min-width:0}
.link[class*="t-"]{border-left:3px solid var(--t)}
.link-title{font-weight:600}
.link-title.unsafe{color:var(--ink-2)}
.link-source{display:inline-block;max-width:100%;overflow-wrap:anywhere;margin-left:8px;font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--ink-3)}
.link-note{margin:2px 0 0;font-size:12.5px;color:var(--ink-2)}
.footnotes{border-top:1px solid var(--border);padding-top:12px;font-size:12.5px;color:var(--ink-2);display:grid;gap:4px}
.footnotes li{display:flex;gap:8px}
.fn-label{flex:none;min-width:1.6em;color:var(--ink-3);font-variant-numeric:tabular-nums}

/* text */
.doc-title .headline{font-size:27px;line-height:1.2;letter-spacing:-.022em;margin:6px 0 8px;font-weight:740}
.doc-title .standfirst{font-size:17px;line-height:1.55;color:var(--ink-2);margin:0 0 10px;max-width:70ch}
.ta-center .doc-title .standfirst,.ta-center .title-mark{margin-inline:auto}
.title-mark{width:36px;height:4px;border-radius:2px;background:var(--t);margin:0 0 12px}
.doc-title .byline{font-size:12.5px;color:var(--ink-3)}
.byline-name{font-weight:600;color:var(--ink-2)}
.doc-title.rule{padding-bottom:18px;border-bottom:1px solid var(--border)}
.heading .heading-text{margin:0;letter-spacing:-.014em;line-height:1.3}
.heading.h-2 .heading-text{font-size:21px;font-weight:700}
.heading.h-3 .heading-text{font-size:17.5px;font-weight:680}
.heading.h-4 .heading-text{font-size:15px;font-weight:680}
.heading.rule{padding-bottom:8px;border-bottom:1px solid var(--border)}
.heading[class*="t-"] .heading-text{color:var(--t-ink)}
.heading.t-neutral .heading-text{color:var(--ink)}
.para{margin:0 0 .85em;max-width:76ch;font-size:14.5px;line-height:1.68}
.para:last-child{margin-bottom:0}
.para.lead{font-size:17px;line-height:1.6;color:var(--ink-2)}
.para[class*="t-"]{color:var(--t-ink)}
.para.t-neutral{color:var(--ink-2)}
.ta-center .para{margin-inline:auto}
.prose{font-size:14.5px;line-height:1.7;max-width:80ch}
.prose.size-sm{font-size:13px}
.prose.size-lg{font-size:16.5px}
.prose>:first-child{margin-top:0}
.prose>:last-child{margin-bottom:0}
.prose h2,.prose h3,.prose h4,.prose h5,.prose h6{line-height:1.3;margin:1.5em 0 .5em;letter-spacing:-.01em}
.prose h2{font-size:1.35em}
.prose h3{font-size:1.15em}
.prose h4,.prose h5,.prose h6{font-size:1em}
.prose p,.prose ul,.prose ol,.prose table,.prose blockquote,.prose pre{margin:0 0 .95em}
.prose ul,.prose ol{padding-left:1.4em}
.prose li+li{margin-top:.3em}
.prose li::marker{color:var(--ink-3)}
.prose code,.callout-text code{background:var(--sunken);padding:.12em .38em;border-radius:5px;font-size:.86em}
.prose pre,.callout-text pre{background:var(--code-bg);border:1px solid var(--border);border-radius:8px;padding:12px 14px;overflow:auto;font-size:12.5px;line-height:1.6}
.prose pre code,.callout-text pre code{background:none;padding:0;font-size:inherit}
.prose blockquote{border-left:3px solid var(--border-strong);padding:0 0 0 14px;color:var(--ink-2)}
.prose hr{border:0;border-top:1px solid var(--border);margin:1.8em 0}
.prose img{max-width:100%;height:auto;border-radius:8px}
.prose table{border-collapse:collapse;font-size:.92em;display:block;overflow-x:auto;max-width:100%}
.prose th,.prose td{border:1px solid var(--border);padding:6px 10px;text-align:left}
.prose th{background:var(--surface-2)}
.prose.cols-2{column-count:2;column-gap:40px;max-width:none}
.prose.cols-2>*{break-inside:avoid-column}
.prose.dropcap>p:first-of-type::first-letter{float:left;font-size:3.4em;line-height:.86;padding:.06em .1em 0 0;font-weight:760;color:var(--accent)}
.callout{display:flex;gap:12px;padding:14px 16px;border-radius:10px;background:var(--t-soft);border:1px solid var(--t-line);border-left:4px solid var(--t)}
.callout-icon{flex:none;width:22px;height:22px;margin-top:1px;border-radius:50%;background:var(--t);color:var(--surface);display:grid;place-items:center;font-size:12px;font-weight:800;font-style:normal}
.callout-body{min-width:0;flex:1}
.callout-title{margin:0 0 3px;font-weight:680}
.callout-text{color:var(--ink-2);font-size:14px}
.callout-text p{margin:0 0 .6em}
.callout-text>:last-child{margin-bottom:0}
.pull-quote{margin:0;padding:6px 0 6px 22px;border-left:3px solid var(--t)}
.pull-quote blockquote{margin:0;font-size:19px;line-height:1.5;font-weight:520;letter-spacing:-.01em}
.pull-quote blockquote p{margin:0 0 .5em}
.pull-quote figcaption{font-size:13px;color:var(--ink-3)}
.quote-who{font-style:normal;font-weight:650;color:var(--ink-2)}
.ta-center .pull-quote{border-left:0;padding:8px 0;text-align:center}
.ta-center .pull-quote blockquote::before{content:"\201C";display:block;font-size:54px;line-height:.7;height:26px;color:var(--t);font-family:Georgia,serif}
.code-block{border:1px solid var(--border);border-radius:10px;overflow:hidden;background:var(--code-bg);min-width:0}
.code-head{display:flex;align-items:center;gap:10px;padding:6px 8px 6px 14px;min-height:36px;border-bottom:1px solid var(--border);font-size:12px;color:var(--ink-3);background:var(--surface-2)}
.code-file{flex:1;min-width:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--ink-2);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.code-lang{font-size:10.5px;text-transform:uppercase;letter-spacing:.07em;font-weight:650}
.copy-btn{height:24px;padding:0 9px;border-radius:6px;border:1px solid var(--border-strong);background:var(--surface);color:var(--ink-2);font:inherit;font-size:11.5px;cursor:pointer}
.code{margin:0;padding:12px 0;overflow:auto;font-size:12.5px;line-height:1.62;tab-size:2;color:var(--ink)}
.code code{display:block;min-width:max-content}
.code .line{display:block;padding:0 16px;min-height:1.62em}
.code.numbered .line{display:grid;grid-template-columns:2.4em minmax(0,1fr);column-gap:14px}
.code .ln::before{content:attr(data-n);display:block;text-align:right;color:var(--ink-3);opacity:.65;user-select:none;-webkit-user-select:none}
.code .line.line-marked{background:color-mix(in srgb,var(--warning) 15%,transparent);box-shadow:inset 3px 0 var(--warning)}
.code.wrap code{min-width:0}
.code.wrap .lc{white-space:pre-wrap;overflow-wrap:anywhere}
.hljs-comment,.hljs-quote{color:var(--hl-comment);font-style:italic}
.hljs-keyword,.hljs-selector-tag,.hljs-literal,.hljs-doctag,.hljs-meta .hljs-keyword,.hljs-template-tag{color:var(--hl-keyword)}
.hljs-string,.hljs-regexp,.hljs-addition,.hljs-meta .hljs-string,.hljs-char{color:var(--hl-string)}
.hljs-number,.hljs-symbol,.hljs-bullet,.hljs-variable,.hljs-template-variable,.hljs-link{color:var(--hl-number)}
.hljs-title,.hljs-section,.hljs-name,.hljs-selector-pseudo{color:var(--hl-title)}
.hljs-attr,.hljs-attribute,.hljs-property,.hljs-selector-class,.hljs-selector-id,.hljs-selector-attr,.hljs-type{color:var(--hl-attr)}
.hljs-built_in,.hljs-params,.hljs-title.class_{color:var(--hl-built-in)}
.hljs-meta{color:var(--hl-meta)}
.hljs-deletion{color:var(--hl-keyword);background:color-mix(in srgb,var(--danger) 12%,transparent)}
.hljs-addition{background:color-mix(in srgb,var(--positive) 12%,transparent)}
.hljs-emphasis{font-style:italic}
.hljs-strong{font-weight:700}

/* media */
.fig{margin:0;min-width:0}
.fig-media{display:block;overflow:hidden;border-radius:10px;background:var(--sunken);border:1px solid var(--border)}
.fig-media img{display:block;width:100%;height:100%;object-fit:contain}
.fit-cover .fig-media img{object-fit:cover}
.ar-16-9 .fig-media{aspect-ratio:16/9}
.ar-4-3 .fig-media{aspect-ratio:4/3}
.ar-3-2 .fig-media{aspect-ratio:3/2}
.ar-1-1 .fig-media{aspect-ratio:1/1}
.ar-auto .fig-media img{height:auto}
.ar-auto .fig-media[style] img{height:100%}
.fig-media.missing{display:grid;place-items:center;min-height:160px;padding:16px;border-style:dashed;color:var(--ink-3);font-size:13px;text-align:center}
.fig.plain .fig-media{border:0;border-radius:0;background:none}
.fig figcaption{margin-top:10px;font-size:13px;color:var(--ink-2)}
.fig-label{font-weight:700;color:var(--ink)}
.fig-credit{color:var(--ink-3);font-size:12px}
.html-frame{display:block;width:100%;border:1px solid var(--border);border-radius:8px;background:transparent}
.html-note{margin:8px 0 0;font-size:12.5px;color:var(--ink-3)}

/* report layout: one readable column */
.layout-report{max-width:780px;margin:0 auto}
.layout-report .sec{margin-bottom:44px}
.layout-report .sec-head{margin-bottom:16px;padding-bottom:8px;border-bottom:1px solid var(--border)}
.layout-report .sec-title{font-size:22px;letter-spacing:-.018em}
.layout-report .para{font-size:15.5px;line-height:1.72}
.layout-report .para.lead{font-size:18px}
.layout-report .prose{font-size:15.5px;line-height:1.75}
.layout-report .blk:not(.bare){box-shadow:none}
.layout-report .k-prose{background:none;border:0;padding:0}
.layout-report .k-prose .blk-title{font-size:17px}

/* dashboards index */
.index-head{margin:0 0 26px;display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:14px 24px}
.index-filter{flex:1 1 260px;max-width:360px;min-width:0;height:36px;padding:0 12px;border:1px solid var(--border-strong);border-radius:8px;background:var(--surface);color:var(--ink);font:inherit;font-size:14px}
.index-none{color:var(--ink-3)}
.index-head h1{font-size:28px;letter-spacing:-.02em;margin:0 0 4px}
.index-head p{margin:0;color:var(--ink-3)}
.dgroup{margin:0 0 34px}
.dgroup-title{font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.08em;color:var(--ink-3);margin:0 0 12px;display:flex;align-items:center;gap:10px}
.dgroup-name{min-width:0;overflow-wrap:anywhere}
.dgroup-count{flex:none;font-weight:600;color:var(--ink-3);background:var(--sunken);border-radius:999px;padding:0 8px;letter-spacing:0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,290px),1fr));gap:14px;list-style:none;margin:0;padding:0}
.card{position:relative;display:flex;flex-direction:column;gap:6px;height:100%;padding:18px 18px 14px;background:var(--surface);border:1px solid var(--border);border-radius:12px;box-shadow:var(--shadow);color:var(--ink);overflow:hidden;transition:border-color .12s,transform .12s}
.card::before{content:"";position:absolute;left:0;right:0;top:0;height:3px;background:var(--t,var(--border-strong))}
.card:hover{text-decoration:none;border-color:var(--border-strong);transform:translateY(-1px)}
.card-title{font-size:15.5px;font-weight:680;letter-spacing:-.01em;overflow-wrap:anywhere}
.card-sub{font-size:13px;color:var(--ink-2);display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;overflow-wrap:anywhere}
.card-foot{margin-top:auto;padding-top:8px;display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px;font-size:12px;color:var(--ink-3)}
.card-tag{font-size:11px;font-weight:650;text-transform:uppercase;letter-spacing:.05em;padding:0 7px;border-radius:999px;background:var(--sunken);color:var(--ink-2)}
.empty-state{text-align:center;padding:64px 16px;border:1px dashed var(--border-strong);border-radius:14px;color:var(--ink-2)}
.empty-state h2{margin:0 0 6px;font-size:18px;color:var(--ink)}
.empty-state pre{display:inline-block;text-align:left;margin:14px 0 0;padding:10px 14px;background:var(--code-bg);border:1px solid var(--border);border-radius:8px;font-size:12.5px;max-width:100%;overflow:auto}

/* sign-in and error pages */
.auth{min-height:100vh;display:grid;place-items:center;padding:24px 16px}
.auth-card{width:100%;max-width:390px;background:var(--surface);border:1px solid var(--border);border-radius:16px;padding:30px 28px;box-shadow:0 10px 30px -12px rgba(16,24,40,.18)}
.auth-card .brand{margin:0 0 20px;font-size:15px}
.auth-card h1{font-size:21px;letter-spacing:-.015em;margin:0 0 4px}
.auth-card .lede{margin:0 0 20px;color:var(--ink-3);font-size:13.5px}
.form-row{display:grid;gap:6px;margin:0 0 14px}
.form-row label{font-size:13px;font-weight:600}
.input{width:100%;height:40px;padding:0 12px;font:inherit;color:var(--ink);background:var(--surface);border:1px solid var(--border-strong);border-radius:9px}
.input:focus{outline:2px solid color-mix(in srgb,var(--info) 40%,transparent);outline-offset:0;border-color:var(--info)}
.form-error{margin:0 0 16px;padding:10px 12px;border-radius:9px;font-size:13px;background:color-mix(in srgb,var(--danger) 10%,transparent);border:1px solid color-mix(in srgb,var(--danger) 35%,transparent);color:color-mix(in srgb,var(--danger) 75%,var(--ink))}
.divider{display:flex;align-items:center;gap:12px;margin:20px 0 16px;font-size:12px;color:var(--ink-3)}
.divider::before,.divider::after{content:"";flex:1;height:1px;background:var(--border)}
.token-login summary{cursor:pointer;font-size:13px;color:var(--ink-2);font-weight:550}
.token-login[open] summary{margin-bottom:12px}
.hint{font-size:12px;color:var(--ink-3);margin:6px 0 0}
.error-page{max-width:560px;margin:10vh auto;text-align:center}
.error-code{font-size:13px;font-weight:700;letter-spacing:.08em;color:var(--ink-3)}
.error-page h1{font-size:24px;margin:6px 0 8px;letter-spacing:-.015em}
.error-page p{color:var(--ink-2);margin:0 0 20px}
.error-page .btn{height:36px}

/* tablet and phone: measured on the page column so print and its preview match */
@container page (max-width:1000px){
  .grid>.blk{grid-column:var(--gcm,1/-1)}
}
@container page (max-width:600px){
  .grid{grid-template-columns:minmax(0,1fr)}
  .grid>.blk{grid-column:1/-1;grid-row:auto}
  .dash-title{font-size:24px}
  .dash-subtitle{font-size:15px}
  .highlights{grid-template-columns:repeat(2,minmax(0,1fr));gap:10px}
  .hl-value{font-size:21px}
  .hl{padding:12px 14px}
  .stats{grid-template-columns:repeat(2,minmax(0,1fr));gap:16px}
  .stats>.stat+.stat{border-left:0;padding-left:0}
  .stat-value{font-size:24px}
  .bignum-value{font-size:38px}
  .fields,.people,.links{grid-template-columns:minmax(0,1fr)}
  .prose.cols-2{column-count:1}
  .toc ol{columns:1}
  .chart.has-narrow .v-wide{display:none}
  .chart.has-narrow .v-narrow{display:block}
  .chart.awaits-narrow .v-wide{display:block}
  .chart.awaits-narrow .v-narrow{display:none}
  .chart{--chart-width:narrow}
  .blk{padding:16px}
  .doc-title .headline{font-size:23px}
  .pull-quote blockquote{font-size:17px}
  .comparison tbody th{width:auto}
}
@media (max-width:640px){
  .page{padding:18px 14px 40px}
  .archive-bar{margin:14px 14px 0}
  .topbar-in{padding:8px 14px;gap:10px}
  .btn-label{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap}
  .crumbs .here,.crumbs .sep:nth-last-child(2),.crumbs>:nth-last-child(n+5){display:none}
  .brand{font-size:0;gap:0}
}
`;

const PRINT_PREVIEW = String.raw`
@media screen{
  html:not(.print-preview) .only-print{display:none!important}
  html.print-preview{background:#e9ebef}
  .print-preview body{background:#e9ebef}
  .print-preview .page{width:210mm;max-width:calc(100vw - 24px);margin:24px auto;padding:14mm 12mm;background:#fff;box-shadow:0 2px 18px rgba(16,24,40,.14);border-radius:4px}
  .print-preview .preview-bar{display:flex;align-items:center;gap:12px;max-width:210mm;margin:16px auto 0;padding:0 4px;font-size:13px;color:#454f5e}
  .print-preview .preview-bar .btn{margin-left:auto}
}
`;

export function buildStylesheet(): string {
  return [
    `:root{${LIGHT}}`,
    // Dark applies to screens only: paper is always light.
    `@media screen{${DARK_SELECTORS}{${DARK}}${DARK_SELECTORS} .i-moon{display:none}${DARK_SELECTORS} .i-sun{display:block}}`,
    `@media screen and (prefers-color-scheme:dark){html:not([data-theme=light]):not(.print-preview){${DARK}}html:not([data-theme=light]):not(.print-preview) .i-moon{display:none}html:not([data-theme=light]):not(.print-preview) .i-sun{display:block}}`,
    // The print preview is light whatever the toggle says, like the paper it previews.
    `html.print-preview,html.print-preview[data-theme=dark]{${LIGHT}}`,
    toneClasses(),
    BASE,
    chartColorRules(),
    // The paper rules first: the preview's sheet (its margins as padding, its A4 width) must win over
    // `.page{padding:0;max-width:none}`, which on paper leaves the margins to @page.
    printRules('.print-preview '),
    PRINT_PREVIEW,
    `@page{size:A4;margin:14mm 12mm 16mm}`,
    `@media print{body{background:#fff}${printRules('')}}`,
  ].join('\n');
}
