/**
 * The app pages' part of the stylesheet (projects, change requests, diffs, sessions, settings), built on
 * the theme's custom properties, so both themes and print come with it.
 */
export const APP_STYLES = String.raw`
/* app pages */
.app{max-width:1280px;margin:0 auto}
.tabs{display:flex;gap:4px;margin:0 0 22px;border-bottom:1px solid var(--border);overflow-x:auto}
.tab{padding:8px 12px;color:var(--ink-2);font-weight:550;border-bottom:2px solid transparent;white-space:nowrap}
.tab:hover{text-decoration:none;color:var(--ink)}
.tab.here{color:var(--ink);border-bottom-color:var(--accent)}
.page-head{display:flex;align-items:flex-start;gap:16px;margin:0 0 16px}
.page-head h1{font-size:24px;letter-spacing:-.02em;margin:0 0 6px;overflow-wrap:anywhere}
.page-head p{margin:0}
.muted{color:var(--ink-3)}
.meta{color:var(--ink-2);display:flex;flex-wrap:wrap;align-items:center;gap:4px 6px}
.index-foot{margin-top:18px}
.panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,380px),1fr));gap:16px}
.panel{background:var(--surface);border:1px solid var(--border);border-radius:12px;padding:16px 18px;margin:0 0 16px;box-shadow:var(--shadow)}
.panels .panel{margin:0}
.panel-title{font-size:14px;font-weight:700;margin:0 0 10px;display:flex;align-items:center;gap:8px}
.panel-more{margin-left:auto;font-size:12.5px;font-weight:550}
.rows{list-style:none;margin:0;padding:0}
.rows.panel{padding:4px 18px}
.row{display:flex;align-items:center;gap:12px;padding:10px 0;border-top:1px solid var(--border)}
.row:first-child{border-top:0}
.row-main{display:flex;flex-direction:column;min-width:0;flex:1;color:var(--ink)}
.row-main:hover{text-decoration:none}
.row-main:hover .row-title{text-decoration:underline}
.row-title{font-weight:600;overflow-wrap:anywhere}
.row-sub{font-size:12.5px;color:var(--ink-3)}
.badge{display:inline-block;font-size:11.5px;font-weight:650;padding:1px 8px;border-radius:999px;background:var(--sunken);color:var(--ink-2);white-space:nowrap}
.badge.s-open,.badge.s-running,.badge.s-completed{background:color-mix(in srgb,var(--positive) 16%,transparent);color:color-mix(in srgb,var(--positive) 60%,var(--ink))}
.badge.s-merged{background:color-mix(in srgb,var(--accent) 16%,transparent);color:color-mix(in srgb,var(--accent) 60%,var(--ink))}
.badge.s-failed,.badge.s-error{background:color-mix(in srgb,var(--danger) 14%,transparent);color:color-mix(in srgb,var(--danger) 62%,var(--ink))}
.badge.s-provisioning,.badge.s-pending,.badge.s-queued,.badge.s-branching{background:color-mix(in srgb,var(--warning) 18%,transparent);color:color-mix(in srgb,var(--warning) 45%,var(--ink))}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 14px}
.chip{padding:4px 12px;border-radius:999px;border:1px solid var(--border-strong);color:var(--ink-2);font-size:13px;font-weight:550}
.chip:hover{text-decoration:none;background:var(--surface-2)}
.chip.here{background:var(--ink);color:var(--bg);border-color:var(--ink)}
.facts{display:flex;flex-wrap:wrap;gap:8px 28px;margin:0 0 16px}
.facts dt{font-size:11.5px;text-transform:uppercase;letter-spacing:.06em;color:var(--ink-3);font-weight:650}
.facts dd{margin:0}
.description{white-space:pre-wrap}
.preview{margin:0;padding:10px 12px;border-radius:9px;background:var(--t-soft);border:1px solid var(--t-line)}
div.preview p{margin:0 0 6px}
div.preview ul{margin:0 0 6px;padding-left:20px}
.actions{margin:0 0 16px}
.action-row{display:flex;flex-wrap:wrap;gap:8px}
.inline-form{display:inline;margin:0}
.btn-go{background:#1a7f37;border-color:transparent;color:#fff}
.btn-go:hover{background:#176f30}
.btn-danger{color:color-mix(in srgb,var(--danger) 70%,var(--ink))}
.form-error p{margin:0}
.form-error ul{margin:6px 0 0;padding-left:20px}
.form-error a{color:inherit;text-decoration:underline;text-underline-offset:2px}
.textarea{height:auto;min-height:80px;padding:10px 12px;resize:vertical;margin:0 0 8px;font:inherit}
.input-small{width:auto;min-width:0;flex:1;max-width:240px;height:32px}
.form-line{display:flex;flex-wrap:wrap;align-items:center;gap:8px}
.form-line label{font-size:13px;font-weight:600}
.form-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,220px),1fr));gap:0 14px}
.stack-form{margin-top:14px;padding-top:14px;border-top:1px solid var(--border)}
.fire-prompt{margin-top:4px;font-size:12.5px;min-width:0}
.fire-prompt summary{cursor:pointer;color:var(--ink-2);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.fire-prompt pre{margin-top:6px}
.page-head p a{text-decoration:underline;text-decoration-thickness:1px;text-underline-offset:2px}
.fire-now label{display:block;font-size:13px;font-weight:600;margin:0 0 6px}
.subhead{font-size:12.5px;font-weight:650;text-transform:uppercase;letter-spacing:.06em;color:var(--ink-3);margin:4px 0 2px}
.checks{border:0;padding:0;margin:0 0 12px;display:flex;flex-wrap:wrap;gap:6px 16px}
.checks legend{font-size:13px;font-weight:600;margin:0 0 6px;padding:0}
.check{display:inline-flex;align-items:center;gap:6px;font-size:13px}
.notice{padding:10px 12px;border-radius:9px;background:var(--sunken);margin:0 0 16px}
.feedback-list{margin:0;padding-left:20px}
.feedback-list li{margin:0 0 10px}
.feedback{white-space:pre-wrap}
table.simple{width:100%;border-collapse:collapse;font-size:13.5px}
table.simple th{text-align:left;font-size:12px;color:var(--ink-3);font-weight:650;padding:6px 8px;border-bottom:1px solid var(--border)}
table.simple td{padding:8px;border-bottom:1px solid var(--border);vertical-align:middle;overflow-wrap:anywhere}
.cell-actions{text-align:right;white-space:nowrap}
.new-token{padding:12px 14px;border-radius:9px;background:var(--t-soft);border:1px solid var(--t-line);margin:0 0 14px}
.new-token p{margin:0 0 8px}
.token-value{display:flex;align-items:center;gap:8px}
.token-value pre{margin:0;flex:1;min-width:0;overflow-x:auto;padding:8px 10px;background:var(--code-bg);border:1px solid var(--border);border-radius:7px;font-size:12.5px}
/* diff */
.changes-head{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;margin:8px 0 12px}
.changes-head h2{font-size:18px;margin:0}
.changes-head .chips{margin:0}
.plus{color:color-mix(in srgb,var(--positive) 70%,var(--ink))}
.minus{color:color-mix(in srgb,var(--danger) 70%,var(--ink))}
.changes-body{display:grid;grid-template-columns:minmax(180px,260px) minmax(0,1fr);gap:16px;align-items:start}
.tree{position:sticky;top:64px;max-height:calc(100vh - 80px);overflow:auto;font-size:12.5px;background:var(--surface);border:1px solid var(--border);border-radius:10px;padding:8px 10px}
.tree ul{list-style:none;margin:0;padding-left:12px}
.tree>ul{padding-left:0}
.tree-name{color:var(--ink-3);font-weight:600}
.tree-file{overflow-wrap:anywhere}
.tree-counts{font-size:11px;white-space:nowrap}
.df{position:relative;margin:0 0 12px;border:1px solid var(--border);border-radius:10px;background:var(--surface);content-visibility:auto;contain-intrinsic-size:auto 120px;scroll-margin-top:64px}
.df-head{display:flex;align-items:center;gap:8px;padding:8px 12px;cursor:pointer;background:var(--surface-2);border-radius:10px;font-size:13px}
.df details[open]>.df-head{border-bottom:1px solid var(--border);border-radius:10px 10px 0 0}
.df-path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere;min-width:0;flex:1}
.df-status{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;color:var(--ink-3)}
.df-counts{font-size:12px;white-space:nowrap}
.df-link{position:absolute;right:8px;top:7px;color:var(--ink-3);padding:0 6px;font-weight:650}
.df-head{padding-right:40px}
.df-note{margin:0;padding:12px;color:var(--ink-2)}
.tag{font-size:11px;font-weight:650;padding:0 7px;border-radius:999px;background:var(--sunken);color:var(--ink-2)}
.dt-scroll{overflow-x:auto}
.dt{border-collapse:collapse;width:100%;font:12.5px/1.55 ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;background:var(--code-bg)}
.dt td{padding:0 8px;vertical-align:top}
/* Tinted rows take some contrast from the code colours: each is pulled a little towards the ink. */
.dt{--hl-keyword:color-mix(in srgb,#cf222e 80%,var(--ink));--hl-built-in:color-mix(in srgb,#953800 85%,var(--ink));--hl-title:color-mix(in srgb,#8250df 80%,var(--ink));--hl-comment:color-mix(in srgb,#636c76 80%,var(--ink))}
@media screen{html[data-theme=dark] .dt{--hl-keyword:#ff8f87;--hl-built-in:#ffb77a;--hl-title:#dcbcff;--hl-comment:#a0a8b2}}
@media screen and (prefers-color-scheme:dark){html:not([data-theme=light]) .dt{--hl-keyword:#ff8f87;--hl-built-in:#ffb77a;--hl-title:#dcbcff;--hl-comment:#a0a8b2}}
.dt .dn{width:1%;min-width:40px;text-align:right;color:var(--ink-3);user-select:none;border-right:1px solid var(--border)}
.dt .dn::before{content:attr(data-n)}
.dt .dc,.dt .side{white-space:pre-wrap;overflow-wrap:anywhere}
.dt-split .side{width:50%}
.dt .dm{user-select:none;display:inline-block;width:1.2em;color:var(--ink-3)}
.dt .da,.dt tr.da td,.dt td.da{background:color-mix(in srgb,var(--positive) 7%,transparent)}
.dt .dd,.dt tr.dd td,.dt td.dd{background:color-mix(in srgb,var(--danger) 7%,transparent)}
.dt tr.da .dm,.dt td.da .dm{color:color-mix(in srgb,var(--positive) 60%,var(--ink))}
.dt tr.dd .dm,.dt td.dd .dm{color:color-mix(in srgb,var(--danger) 60%,var(--ink))}
.dt .de{background:var(--sunken)}
.dt tr.dh td{background:color-mix(in srgb,var(--info) 9%,transparent);color:var(--ink-2);padding:3px 8px}
.dt tr.dnote td{color:var(--ink-3);font-style:italic}
/* sessions */
.conversation{display:flex;flex-direction:column;gap:10px}
.turn{padding:10px 12px;border-radius:10px;background:var(--surface-2);border:1px solid var(--border)}
.turn-user{background:color-mix(in srgb,var(--info) 8%,var(--surface))}
.turn-thinking{color:var(--ink-2);font-style:italic}
.turn-error{background:color-mix(in srgb,var(--danger) 10%,var(--surface));border-color:color-mix(in srgb,var(--danger) 35%,transparent);color:color-mix(in srgb,var(--danger) 75%,var(--ink))}
.turn-who{font-size:11.5px;font-weight:700;text-transform:uppercase;letter-spacing:.06em;color:var(--ink-3);margin:0 0 4px}
.turn-text{white-space:pre-wrap;overflow-wrap:anywhere}
.tool{border:1px solid var(--border);border-radius:10px;background:var(--surface)}
.tool summary{padding:8px 12px;cursor:pointer;display:flex;flex-wrap:wrap;align-items:center;gap:6px;font-size:13px}
.tool-name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:650}
.tool-title{color:var(--ink-2);overflow-wrap:anywhere;flex:1;min-width:0}
.tool-body{padding:0 12px 10px}
.tool-label{font-size:11.5px;font-weight:700;color:var(--ink-3);margin:8px 0 4px;text-transform:uppercase;letter-spacing:.05em}
.tool-io,.edit-lines{margin:0;padding:8px 10px;background:var(--code-bg);border:1px solid var(--border);border-radius:7px;font-size:12.5px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:420px;overflow:auto}
.tool-error{color:color-mix(in srgb,var(--danger) 75%,var(--ink))}
.edit-path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;margin:0 0 4px}
.edit-lines .da{display:block;background:color-mix(in srgb,var(--positive) 13%,transparent)}
.edit-lines .dd{display:block;background:color-mix(in srgb,var(--danger) 12%,transparent)}
.message-box .btn,.request-changes .btn{margin-top:2px}
@media (max-width:820px){
  .changes-body{grid-template-columns:minmax(0,1fr)}
  .tree{position:static;max-height:240px}
}
@media (max-width:640px){
  .page-head h1{font-size:20px}
  .panel{padding:14px}
  .rows.panel{padding:2px 14px}
  .dt{font-size:11.5px}
  .dt .dn{min-width:28px;padding:0 4px}
}
@media print{
  .tabs,.actions,.message-box,.request-changes,.new-session,.stack-form,.tree,.chips,.df-link{display:none!important}
  .changes-body{display:block}
  .df{content-visibility:visible}
}
`;
