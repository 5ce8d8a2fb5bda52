/**
 * The only script of the web UI, served as a static, hashed asset (never inline). Pages work without
 * it; it adds the theme toggle, table filtering and sorting, relative times and copy buttons.
 *
 * Table filtering stays fast at 5,000 rows: each row's text is lower-cased once, on first use, and a
 * keystroke only flips `hidden` on rows whose visibility changes, at most once per animation frame.
 */

/** Runs in <head> before first paint, so a stored theme never flashes the other one. Allowed by hash. */
export const THEME_BOOT_SCRIPT =
  // `?theme=dark` in the address wins over the stored choice: a wall display has no toggle to click.
  "try{var q=/[?&]theme=(dark|light)(?:&|$)/.exec(location.search),t=q?q[1]:localStorage.getItem('svc-theme');if(t==='dark'||t==='light')document.documentElement.setAttribute('data-theme',t)}catch(e){}";

export const CLIENT_SCRIPT = String.raw`(function () {
  'use strict';
  var root = document.documentElement;
  var darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function currentTheme() {
    var chosen = root.getAttribute('data-theme');
    if (chosen === 'dark' || chosen === 'light') return chosen;
    return darkQuery && darkQuery.matches ? 'dark' : 'light';
  }

  function labelToggles() {
    var next = currentTheme() === 'dark' ? 'light' : 'dark';
    document.querySelectorAll('[data-theme-toggle]').forEach(function (button) {
      button.setAttribute('aria-label', 'Switch to ' + next + ' theme');
      button.setAttribute('title', 'Switch to ' + next + ' theme');
    });
  }

  document.addEventListener('click', function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var toggle = target.closest('[data-theme-toggle]');
    if (toggle) {
      var next = currentTheme() === 'dark' ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { localStorage.setItem('svc-theme', next); } catch (e) { /* private mode: the choice lasts for this page */ }
      labelToggles();
      return;
    }
    if (target.closest('[data-print]')) { window.print(); return; }
    var copy = target.closest('[data-copy]');
    if (copy) { copyCode(copy); return; }
    var sorter = target.closest('button.th-sort');
    if (sorter) sortBy(sorter);
  });

  // Tables: filter -----------------------------------------------------------------------------
  function setUpSearch(input) {
    var table = document.getElementById(input.getAttribute('data-table'));
    if (!table || !table.tBodies[0]) return;
    var body = table.tBodies[0];
    var block = input.closest('.blk') || table.parentNode;
    var count = block.querySelector('.tbl-count');
    var empty = block.querySelector('.tbl-empty');
    var showAll = block.querySelector('.tbl-all');
    var more = block.querySelector('.tbl-more');
    var moreText = more && more.querySelector('.tbl-shown');
    var initialMore = moreText ? moreText.textContent : '';
    var limit = Number(table.getAttribute('data-page')) || Infinity;
    var texts = null;
    var rows = null;
    var pending = false;
    var total = body.rows.length;
    var format = new Intl.NumberFormat();

    // A row's text is its cells' text, one cell per line (a term cannot run from one cell into the
    // next), without the row number of a numbered table: "12" must not find rows 12, 112 and 120.
    function rowText(row) {
      var text = '';
      for (var c = 0; c < row.cells.length; c++) {
        if (!row.cells[c].classList.contains('rn')) text += row.cells[c].textContent + '\n';
      }
      return text.toLowerCase();
    }

    function index() {
      rows = Array.prototype.slice.call(body.rows);
      texts = rows.map(rowText);
    }

    function apply() {
      pending = false;
      if (!texts || rows.length !== body.rows.length) index();
      var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var filtering = terms.length > 0;
      // Unfiltered long tables are capped by CSS; filtered ones here, at the same number of rows. The
      // cap is a class that only screens obey (paper gets every matching row); a non-match is hidden.
      var cap = filtering && !(showAll && showAll.checked) ? limit : Infinity;
      var matches = 0;
      for (var i = 0; i < rows.length; i++) {
        var text = texts[i];
        var match = true;
        for (var j = 0; j < terms.length; j++) if (text.indexOf(terms[j]) === -1) { match = false; break; }
        if (match) matches++;
        var over = match && matches > cap;
        if (rows[i].hidden === match) rows[i].hidden = !match;
        if (rows[i].classList.contains('over-page') !== over) rows[i].classList.toggle('over-page', over);
      }
      table.classList.toggle('filtered', filtering);
      if (count) count.textContent = filtering ? format.format(matches) + ' of ' + format.format(total) + ' rows' : format.format(total) + ' rows';
      if (empty) empty.hidden = matches !== 0;
      if (more && moreText) {
        more.hidden = filtering && matches <= limit;
        moreText.textContent = filtering ? 'Showing the first ' + format.format(limit) + ' of ' + format.format(matches) + ' matching rows.' : initialMore;
      }
    }

    input.addEventListener('input', function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(apply);
    });
    input.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && input.value) { input.value = ''; apply(); }
    });
    if (showAll) showAll.addEventListener('change', function () { if (input.value) apply(); });
    // Sorting reorders rows; the index is rebuilt on the next keystroke.
    table.addEventListener('svc:sorted', function () { texts = null; });
  }

  // Tables: sort by a column (tables with a header row and more than one row) --------------------
  function cellValue(row, column) {
    var cell = row.cells[column];
    if (!cell) return '';
    var text = cell.textContent.trim();
    var number = Number(text.replace(/[,\s%$€£]/g, ''));
    return text !== '' && !isNaN(number) ? number : text.toLowerCase();
  }

  function sortBy(button) {
    var th = button.closest('th');
    var table = th.closest('table');
    var body = table.tBodies[0];
    var column = th.cellIndex;
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    table.querySelectorAll('thead th[aria-sort]').forEach(function (other) { other.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var keyed = Array.prototype.map.call(body.rows, function (row, position) {
      return { row: row, key: cellValue(row, column), position: position };
    });
    keyed.sort(function (a, b) {
      var x = a.key, y = b.key, order;
      if (typeof x === typeof y) order = x < y ? -1 : x > y ? 1 : 0;
      else order = typeof x === 'number' ? -1 : 1;
      if (!ascending) order = -order;
      return order || a.position - b.position;
    });
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (item) { fragment.appendChild(item.row); });
    body.appendChild(fragment);
    table.dispatchEvent(new Event('svc:sorted'));
  }

  function setUpSorting(table) {
    if (!table.tHead || !table.tBodies[0] || table.tBodies[0].rows.length < 2) return;
    table.tHead.querySelectorAll('th').forEach(function (th) {
      if (th.classList.contains('rn') || !th.textContent.trim()) return;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'th-sort';
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
    });
  }

  // Code: copy -----------------------------------------------------------------------------------
  function copyCode(button) {
    var pre = button.closest('.code-block').querySelector('pre');
    if (!pre || !navigator.clipboard) return;
    navigator.clipboard.writeText(pre.innerText.replace(/\n$/, '')).then(function () {
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = 'Copy'; }, 1600);
    });
  }

  // Times: "3 hours ago", the exact time on hover --------------------------------------------------
  var units = [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60]];
  var relativeFormat = window.Intl && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat('en', { numeric: 'auto' }) : null;

  /** "3 hours ago" for an ISO time, or null when it is over a month away (or the browser cannot say). */
  function relativeText(iso) {
    var when = Date.parse(iso);
    if (!relativeFormat || isNaN(when)) return null;
    var seconds = (when - Date.now()) / 1000;
    if (Math.abs(seconds) > 30 * 86400) return null;
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(seconds) >= units[i][1]) return relativeFormat.format(Math.round(seconds / units[i][1]), units[i][0]);
    }
    return 'just now';
  }

  /** Run again every minute, so "just now" does not stay just now; the exact time stays in the title. */
  function relativeTimes() {
    document.querySelectorAll('time[data-relative]').forEach(function (element) {
      var text = relativeText(element.getAttribute('datetime'));
      if (text === null) return;
      if (!element.hasAttribute('title')) element.setAttribute('title', element.textContent);
      element.textContent = text;
    });
  }

  // The dashboards index: a filter over titles, subtitles and group names ----------------------------
  function setUpIndexFilter(input) {
    var count = document.querySelector('[data-index-count]');
    var total = Number(count.getAttribute('data-index-count'));
    var countText = count.textContent;
    var none = document.querySelector('.index-none');
    var groups = Array.prototype.map.call(document.querySelectorAll('.dgroup'), function (group) {
      var name = (group.getAttribute('data-group') || '').toLowerCase();
      var badge = group.querySelector('.dgroup-count');
      return { element: group, badge: badge, size: badge && badge.textContent, cards: Array.prototype.map.call(group.querySelectorAll('.cards > li'), function (item) {
        return { element: item, text: name + ' ' + item.textContent.toLowerCase() };
      }) };
    });
    input.addEventListener('input', function () {
      var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      groups.forEach(function (group) {
        var matches = 0;
        group.cards.forEach(function (card) {
          var match = terms.every(function (term) { return card.text.indexOf(term) !== -1; });
          card.element.hidden = !match;
          if (match) matches++;
        });
        group.element.hidden = matches === 0;
        if (group.badge) group.badge.textContent = terms.length ? matches + ' of ' + group.size : group.size;
        shown += matches;
      });
      count.textContent = terms.length ? shown + ' of ' + total + ' dashboards match' : countText;
      none.hidden = shown > 0;
    });
  }

  // A newer version: the current version's page asks every minute, and when its tab is shown again -----
  function watchForNewerVersion(bar) {
    var url = bar.getAttribute('data-watch');
    var shown = Number(bar.getAttribute('data-version'));
    var text = bar.querySelector('p');
    var link = bar.querySelector('a');
    // A wall display (data-follow) loads the newer version itself, and asks twice as often.
    var follow = bar.hasAttribute('data-follow');
    var settled = false;
    function tell(message) {
      settled = true;
      text.textContent = message;
      bar.hidden = false;
    }
    function check() {
      if (settled || document.visibilityState === 'hidden') return;
      fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' }).then(function (response) {
        if (response.status === 404) return tell('This dashboard has been deleted since this page was opened.');
        if (response.status === 401) {
          link.href = '/login?next=' + encodeURIComponent(location.pathname + location.search);
          link.textContent = 'Sign in';
          link.hidden = false;
          return tell('Your sign-in has ended, so newer versions of this dashboard cannot be shown.');
        }
        if (!response.ok) return;
        return response.json().then(function (latest) {
          if (!(latest.version > shown)) return;
          if (follow) {
            settled = true;
            return location.reload();
          }
          link.textContent = 'Show version ' + latest.version;
          link.hidden = false;
          tell('Version ' + latest.version + ' of this dashboard was published ' + (relativeText(latest.updated_at) || 'since this page was opened') + '.');
        });
      }).catch(function () {});
    }
    setInterval(check, follow ? 30000 : 60000);
    document.addEventListener('visibilitychange', check);
  }

  // A chart's drawing at the other width, left out of the page (see ChartWidths), once a resized -----
  // window shows that width: brought from this page drawn with both, and only from this same version.
  function bringLeftOutDrawings() {
    if (!document.querySelector('[data-pending]')) return;
    var asked = false;
    function check() {
      var wanted = Array.prototype.some.call(document.querySelectorAll('[data-pending]'), function (slot) {
        return slot.classList.contains('v-narrow') === (getComputedStyle(slot).getPropertyValue('--chart-width').trim() === 'narrow');
      });
      if (asked || !wanted) return;
      asked = true;
      window.removeEventListener('resize', check);
      var url = new URL(location.href);
      url.hash = '';
      url.searchParams.set('drawings', 'all');
      fetch(url, { credentials: 'same-origin' }).then(function (response) {
        return response.ok ? response.text() : '';
      }).then(function (html) {
        var page = new DOMParser().parseFromString(html, 'text/html');
        var version = function (doc) { var article = doc.querySelector('article.dash'); return article && article.getAttribute('data-version'); };
        var mine = document.querySelectorAll('.chart-img');
        var theirs = page.querySelectorAll('.chart-img');
        if (!version(page) || version(page) !== version(document) || mine.length !== theirs.length) return;
        mine.forEach(function (figure, index) {
          figure.querySelectorAll('[data-pending]').forEach(function (slot) {
            var drawn = theirs[index].querySelector(':scope > ' + (slot.classList.contains('v-narrow') ? '.v-narrow' : '.v-wide'));
            if (drawn && !drawn.hasAttribute('data-pending')) slot.replaceWith(document.importNode(drawn, true));
          });
          if (!figure.querySelector('[data-pending]')) figure.parentNode.classList.remove('awaits-wide', 'awaits-narrow');
        });
      }).catch(function () {});
    }
    window.addEventListener('resize', check);
    check();
  }

  function edges(el) {
    function f() { var m = el.scrollWidth - el.clientWidth, x = el.scrollLeft; el.classList.toggle('more-left', m > 1 && x > 1); el.classList.toggle('more-right', m > 1 && x < m - 1); }
    el.addEventListener('scroll', f);
    addEventListener('resize', f);
    f();
  }

  function start() {
    labelToggles();
    document.querySelectorAll('.tbl-scroll').forEach(edges);
    if (darkQuery && darkQuery.addEventListener) darkQuery.addEventListener('change', labelToggles);
    document.querySelectorAll('input.tbl-search').forEach(setUpSearch);
    document.querySelectorAll('table.tbl[data-sortable]').forEach(setUpSorting);
    document.querySelectorAll('[data-copy]').forEach(function (button) { if (navigator.clipboard) button.hidden = false; });
    relativeTimes();
    setInterval(relativeTimes, 60000);
    document.querySelectorAll('[data-watch]').forEach(watchForNewerVersion);
    document.querySelectorAll('[data-index-filter]').forEach(setUpIndexFilter);
    bringLeftOutDrawings();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
