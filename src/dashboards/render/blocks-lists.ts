/** Lists: list, timeline, fields, pills, people, steps, checklist, links, footnotes. */
import type {
  ChecklistBlock,
  FieldsBlock,
  FootnotesBlock,
  LinksBlock,
  ListBlock,
  PeopleBlock,
  PillsBlock,
  StepsBlock,
  TimelineBlock,
} from '../spec-schema.js';
import { escapeAttr, escapeHtml, escapeScalar, linkAttributes, safeUrl } from './escape.js';
import type { RenderContext } from './render-context.js';
import { percentWidth, toneClass } from './tone.js';

export function renderList(block: ListBlock): string {
  const tag = block.ordered ? 'ol' : 'ul';
  const items = block.items
    .map(
      (item) =>
        `<li class="li${toneClass(item.tone)}"><div class="li-head"><span class="li-title">${escapeHtml(item.title)}</span>` +
        (item.meta ? `<span class="li-meta">${escapeHtml(item.meta)}</span>` : '') +
        `</div>${item.detail ? `<p class="li-detail">${escapeHtml(item.detail)}</p>` : ''}</li>`,
    )
    .join('');
  return `<${tag} class="item-list${block.ordered ? ' ordered' : ''}">${items}</${tag}>`;
}

export function renderTimeline(block: TimelineBlock): string {
  const events = block.events
    .map(
      (event) =>
        `<li class="tl-event${toneClass(event.tone ?? 'neutral')}"><span class="tl-dot" aria-hidden="true"></span>` +
        `<div class="tl-when">${escapeHtml(event.when)}</div><div class="tl-title">${escapeHtml(event.title)}</div>` +
        (event.detail ? `<p class="tl-detail">${escapeHtml(event.detail)}</p>` : '') +
        `</li>`,
    )
    .join('');
  return `<ol class="timeline">${events}</ol>`;
}

export function renderFields(block: FieldsBlock): string {
  const columns = block.columns ?? (block.inline ? 1 : 2);
  const fields = block.fields
    .map(
      (field) =>
        `<div class="field${toneClass(field.tone)}"><dt>${escapeHtml(field.label)}</dt><dd>${escapeHtml(field.value)}</dd></div>`,
    )
    .join('');
  return `<dl class="fields${block.inline ? ' inline' : ''}" style="--field-cols:${columns}">${fields}</dl>`;
}

export function renderPills(block: PillsBlock): string {
  const pills = block.pills
    .map(
      (pill) =>
        `<li class="pill${toneClass(pill.tone ?? 'neutral')}"><span class="pill-label">${escapeHtml(pill.label)}</span>` +
        (pill.value !== undefined ? `<span class="pill-value">${escapeScalar(pill.value)}</span>` : '') +
        `</li>`,
    )
    .join('');
  return `<ul class="pills${block.solid ? ' solid' : ''}">${pills}</ul>`;
}

/** Up to two initials from a name: "Ada Lovelace" → "AL", "review-agent" → "RA". */
export function initialsOf(name: string): string {
  const words = name.split(/[\s\-_.]+/u).filter((word) => word.length > 0);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : [words[0] ?? '?'];
  return letters
    .map((word) => Array.from(word ?? '')[0] ?? '')
    .join('')
    .toUpperCase();
}

export function renderPeople(block: PeopleBlock, context: RenderContext): string {
  const columns = block.columns ?? 2;
  const people = block.people
    .map((person, index) => {
      const avatarUrl = safeUrl(person.avatarUrl);
      if (person.avatarUrl && !avatarUrl) context.noteRefusedUrl('This avatar is not shown (the initials are)', person.avatarUrl, 'people', index, 'avatarUrl');
      const initials = escapeHtml(person.initials || initialsOf(person.name));
      // Initials sit under the photo: if the image fails to load, they still show.
      const avatar = `<span class="avatar${toneClass(person.tone ?? 'neutral')}" aria-hidden="true"><span class="avatar-initials">${initials}</span>${
        avatarUrl ? `<img src="${escapeAttr(avatarUrl)}" alt="" loading="lazy" decoding="async" referrerpolicy="no-referrer">` : ''
      }</span>`;
      const status = person.status ? `<span class="person-status${toneClass(person.tone ?? 'neutral')}">${escapeHtml(person.status)}</span>` : '';
      return (
        `<li class="person">${avatar}<div class="person-body"><div class="person-name">${escapeHtml(person.name)}${status}</div>` +
        (person.role ? `<div class="person-role">${escapeHtml(person.role)}</div>` : '') +
        (person.detail ? `<div class="person-detail">${escapeHtml(person.detail)}</div>` : '') +
        `</div></li>`
      );
    })
    .join('');
  return `<ul class="people" style="--people-cols:${columns}">${people}</ul>`;
}

const STEP_STATUS_WORDS = { done: 'Done', active: 'In progress', todo: 'To do', blocked: 'Blocked' } as const;

export function renderSteps(block: StepsBlock): string {
  const start = block.start ?? 1;
  const steps = block.steps
    .map((step, index) => {
      const status = step.status ?? 'todo';
      const marker = status === 'done' ? '✓' : status === 'blocked' ? '!' : String(start + index);
      return (
        `<li class="step s-${status}"${status === 'active' ? ' aria-current="step"' : ''}><span class="step-marker" aria-hidden="true">${escapeHtml(marker)}</span>` +
        `<div class="step-body"><div class="step-head"><span class="step-title">${escapeHtml(step.title)}</span>` +
        `<span class="step-status">${STEP_STATUS_WORDS[status]}</span>` +
        (step.meta ? `<span class="step-meta">${escapeHtml(step.meta)}</span>` : '') +
        `</div>${step.detail ? `<p class="step-detail">${escapeHtml(step.detail)}</p>` : ''}</div></li>`
      );
    })
    .join('');
  return `<ol class="steps" start="${start}">${steps}</ol>`;
}

const CHECK_WORDS = { done: 'Done', todo: 'To do', blocked: 'Blocked', na: 'Not applicable' } as const;
const CHECK_MARKS = { done: '✓', todo: '', blocked: '!', na: '–' } as const;

export function renderChecklist(block: ChecklistBlock): string {
  const parts: string[] = [];
  if (block.progress) {
    const counted = block.items.filter((item) => (item.state ?? 'todo') !== 'na');
    const done = counted.filter((item) => item.state === 'done').length;
    const ratio = counted.length > 0 ? done / counted.length : 0;
    parts.push(
      `<div class="check-progress"><div class="check-progress-text"><strong>${done} of ${counted.length}</strong> done` +
        `<span class="check-pct">${Math.round(ratio * 100)}%</span></div>` +
        `<div class="bar t-positive" role="progressbar" aria-label="Checklist progress" aria-valuemin="0" aria-valuemax="${counted.length}" aria-valuenow="${done}"><span style="width:${percentWidth(ratio)}"></span></div></div>`,
    );
  }
  const items = block.items
    .map((item) => {
      const state = item.state ?? 'todo';
      return (
        `<li class="check c-${state}"><span class="check-box" aria-hidden="true">${CHECK_MARKS[state]}</span><span class="sr-only">${CHECK_WORDS[state]}: </span>` +
        `<div class="check-body"><div class="check-head"><span class="check-label">${escapeHtml(item.label)}</span>` +
        (item.meta ? `<span class="check-meta">${escapeHtml(item.meta)}</span>` : '') +
        `</div>${item.detail ? `<p class="check-detail">${escapeHtml(item.detail)}</p>` : ''}</div></li>`
      );
    })
    .join('');
  parts.push(`<ul class="checklist">${items}</ul>`);
  return parts.join('');
}

/** "example.com" from a URL, shown beside links whose spec gives no source. */
function hostOf(url: string): string | null {
  const match = /^https?:\/\/([^/?#:@]+)/i.exec(url);
  return match?.[1]?.replace(/^www\./, '') ?? null;
}

export function renderLinks(block: LinksBlock, context: RenderContext): string {
  const links = block.links
    .map((link, index) => {
      const url = safeUrl(link.url);
      if (!url) context.noteRefusedUrl('This link is shown as plain text', link.url, 'links', index, 'url');
      const source = link.source ?? (url ? hostOf(url) : null);
      const label = escapeHtml(link.label);
      const title = url ? `<a class="link-title" ${linkAttributes(url)}>${label}</a>` : `<span class="link-title unsafe">${label}</span>`;
      return (
        `<li class="link${toneClass(link.tone)}">${title}` +
        (source ? `<span class="link-source">${escapeHtml(source)}</span>` : '') +
        (link.note ? `<p class="link-note">${escapeHtml(link.note)}</p>` : '') +
        `</li>`
      );
    })
    .join('');
  return `<ul class="links" style="--link-cols:${block.columns ?? 1}">${links}</ul>`;
}

export function renderFootnotes(block: FootnotesBlock): string {
  const start = block.start ?? 1;
  const notes = block.notes
    .map((note, index) => `<li><span class="fn-label">${escapeHtml(note.label ?? String(start + index))}</span><span class="fn-text">${escapeHtml(note.text)}</span></li>`)
    .join('');
  return `<ol class="footnotes">${notes}</ol>`;
}
