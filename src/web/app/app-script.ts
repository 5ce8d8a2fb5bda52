/**
 * The app pages' part of the client script: confirmation of destructive buttons, the merge preview kept
 * live, and a session's page following its events stream (status, sandbox state, the conversation's
 * parts as they arrive). Everything it adds is built with textContent; without it the pages still work.
 */
export const APP_SCRIPT = String.raw`(function () {
  'use strict';

  document.addEventListener('submit', function (event) {
    var form = event.target instanceof HTMLFormElement ? event.target : null;
    var question = form && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // Merge preview: asked again while the page is visible, so a push or a conflict shows without a reload.
  var PREVIEW_EVERY_MS = 10000;
  document.querySelectorAll('[data-live]').forEach(function (box) {
    var url = box.getAttribute('data-live');
    setInterval(function () {
      if (document.hidden) return;
      fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } }).then(function (answer) {
        return answer.ok ? answer.text() : null;
      }).then(function (html) {
        if (html !== null && html !== box.innerHTML) box.innerHTML = html;
      }).catch(function () { /* offline for a moment: the next round tries again */ });
    }, PREVIEW_EVERY_MS);
  });

  // Session page ------------------------------------------------------------------------------------
  var conversation = document.getElementById('conversation');
  if (!conversation || !window.EventSource) return;
  var roles = {};
  var lastStatus = null;
  var note = document.querySelector('[data-live-note]');

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function asText(value) {
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }

  function renderPart(part, role) {
    if ((part.type === 'text' || part.type === 'reasoning') && part.text && part.text.trim()) {
      var kind = role === 'user' ? 'user' : part.type === 'reasoning' ? 'thinking' : 'agent';
      var turn = el('div', 'turn turn-' + kind);
      turn.appendChild(el('div', 'turn-who', role === 'user' ? 'You' : part.type === 'reasoning' ? 'Thinking' : 'Agent'));
      turn.appendChild(el('div', 'turn-text', part.text.trim()));
      return turn;
    }
    if (part.type === 'tool') {
      var state = part.state || {};
      var status = state.status || 'pending';
      var tool = el('details', 'tool');
      var summary = el('summary');
      summary.appendChild(el('span', 'tool-name', part.tool || 'tool'));
      summary.appendChild(document.createTextNode(' '));
      summary.appendChild(el('span', 'tool-title', state.title || ''));
      summary.appendChild(document.createTextNode(' '));
      summary.appendChild(el('span', 'badge s-' + status, status));
      tool.appendChild(summary);
      var body = el('div', 'tool-body');
      body.appendChild(el('div', 'tool-label', 'Input'));
      body.appendChild(el('pre', 'tool-io', asText(state.input)));
      if (status === 'error' || state.output !== undefined) {
        body.appendChild(el('div', 'tool-label', 'Result'));
        body.appendChild(el('pre', status === 'error' ? 'tool-io tool-error' : 'tool-io', status === 'error' ? asText(state.error) || 'failed' : asText(state.output)));
      }
      tool.appendChild(body);
      return tool;
    }
    return null;
  }

  // Parts that arrive while the conversation is being fetched again, applied over what the fetch brings.
  var arrivedDuringFetch = null;

  // A text part's words stream in as deltas before the part itself is updated whole; each is shown at once.
  var partTypes = {};
  var streamed = {};

  function showPart(part) {
    if (!part || !part.id) return;
    partTypes[part.id] = part.type;
    if (typeof part.text === 'string') streamed[part.id] = part.text;
    if (arrivedDuringFetch) arrivedDuringFetch.push(part);
    // The page was drawn before the runtime answered: its first part means the whole conversation can be read.
    else if (conversation.getAttribute('data-conversation') !== 'live') refetch();
    var node = renderPart(part, roles[part.messageID] || 'assistant');
    if (!node) return;
    node.setAttribute('data-part', part.id);
    var existing = null;
    conversation.querySelectorAll('[data-part]').forEach(function (candidate) {
      if (candidate.getAttribute('data-part') === part.id) existing = candidate;
    });
    if (existing) {
      if (existing.tagName === 'DETAILS' && existing.open) node.open = true;
      existing.replaceWith(node);
    } else conversation.appendChild(node);
  }

  function showStatus(data) {
    // The runtime has a session.status event of its own (its properties, no status string): not svc's.
    if (!data || typeof data.status !== 'string') return;
    var badge = document.querySelector('[data-session-status] .badge');
    if (badge) { badge.textContent = data.status; badge.className = 'badge s-' + data.status; }
    var sandbox = document.querySelector('[data-sandbox-state]');
    if (sandbox) sandbox.textContent = data.sandbox_state || 'none';
    // The conversation is read from the sandbox: once it runs again, the page is drawn again with it.
    var changed = lastStatus !== null && lastStatus !== data.status;
    lastStatus = data.status;
    if (changed && data.status === 'running' && conversation.getAttribute('data-conversation') !== 'live') location.reload();
  }

  var source = new EventSource(conversation.getAttribute('data-events'));
  source.addEventListener('session.status', function (event) {
    try { showStatus(JSON.parse(event.data)); } catch (e) { /* not a status */ }
  });
  source.addEventListener('message.updated', function (event) {
    try {
      var info = JSON.parse(event.data).properties.info;
      if (info && info.id) roles[info.id] = info.role;
      // A reply that failed has no part saying why: the page reads the conversation again, which says it.
      if (info && info.error && !conversation.querySelector('[data-error="' + CSS.escape(info.id) + '"]')) refetch();
    } catch (e) { /* not a message */ }
  });
  source.addEventListener('message.part.updated', function (event) {
    try { showPart(JSON.parse(event.data).properties.part); } catch (e) { /* not a part */ }
  });
  source.addEventListener('message.part.delta', function (event) {
    try {
      var delta = JSON.parse(event.data).properties;
      if (!delta || !delta.partID || typeof delta.delta !== 'string' || (delta.field && delta.field !== 'text')) return;
      var type = partTypes[delta.partID] === 'reasoning' ? 'reasoning' : 'text';
      showPart({ id: delta.partID, messageID: delta.messageID, type: type, text: (streamed[delta.partID] || '') + delta.delta });
    } catch (e) { /* not a delta */ }
  });
  // Once the stream is open, the conversation is read again: what happened before it opened is not lost.
  // The source answers 204 while the runtime cannot be read; what the page shows then stays.
  function refetch() {
    arrivedDuringFetch = [];
    fetch(conversation.getAttribute('data-source'), { credentials: 'same-origin' }).then(function (answer) {
      return answer.status === 200 ? answer.text() : null;
    }).then(function (html) {
      var later = arrivedDuringFetch || [];
      arrivedDuringFetch = null;
      if (html === null) return;
      conversation.innerHTML = html;
      conversation.setAttribute('data-conversation', 'live');
      var stale = document.querySelector('.conversation-note');
      if (stale) stale.hidden = true;
      later.forEach(showPart);
    }).catch(function () { arrivedDuringFetch = null; });
  }
  source.addEventListener('open', function () {
    if (note) note.hidden = true;
    refetch();
  });
  source.addEventListener('error', function () {
    if (!note) return;
    note.textContent = source.readyState === EventSource.CLOSED ? 'Live updates stopped; reload the page to see what happened since.' : 'Reconnecting to live updates…';
    note.hidden = false;
  });
})();
`;
