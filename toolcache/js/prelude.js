const __clean = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();
const __norm = (s) => __clean(s).toLowerCase().replace(/&/g, 'and').replace(/[^a-z0-9]/g, '');
// the same label: as written, or alike in letters and digits (a label of symbols only, "=" or ">", is not "!=")
const __same = (a, b) => __clean(a) === __clean(b) || (__norm(a) !== '' && __norm(a) === __norm(b));
const __num = (v) => { if (v == null) return null; const m = String(v).replace(/,/g, '').match(/-?\d+(\.\d+)?/); return m ? parseFloat(m[0]) : null; };
const __bool = (v) => v == null ? null : String(v) === 'true';
const __visible = (el) => !!el && !el.closest('[hidden]');
// text for screen readers only: an element drawn in a box of at most 1 px, or clipped to nothing
// (`sr-only`, `visually-hidden`: position absolute, clip rect(0 0 0 0) or clip-path inset(50%))
const __srOnly = (e) => {
  const s = getComputedStyle(e);
  if (s.position !== 'absolute' && s.position !== 'fixed') return false;
  return (parseFloat(s.width) <= 1 && parseFloat(s.height) <= 1) || /^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(s.clip)
    || s.clipPath === 'inset(50%)';
};
// an element's text as shown (its innerText), less the text in it for screen readers only (a
// status cell's "Current page status:" before "live") when any other text remains: a value read
// into a tool's output is what the page shows; an icon link's only, hidden label is still its text.
// In the page's own letters: a stylesheet's upper case ("LIVE") is how it is drawn, not the value
const __text = (el) => {
  const hidden = [...el.querySelectorAll('*')].filter((h) => __clean(h.textContent) && __srOnly(h))
    .filter((h, _, all) => !all.some((o) => o !== h && o.contains(h)));  // inside another: gone with it
  const less = (text, part) => hidden.reduce((t, h) => t.replace(part(h), ' '), text);
  const all = el.innerText || el.textContent || '';
  const shown = __clean(less(all, (h) => h.innerText || h.textContent));
  const plain = __clean(less(el.textContent || '', (h) => h.textContent || ''));
  const out = shown || __clean(all);
  const source = shown ? plain : __clean(el.textContent);
  return source.toLowerCase() === out.toLowerCase() ? source : out;
};
const __pair = (label) => {
  const want = __norm(label);
  for (const h of document.querySelectorAll('th, dt')) {
    if (__norm(h.textContent) !== want || !h.nextElementSibling) continue;
    const cell = h.nextElementSibling;
    const sel = cell.querySelector('select');
    if (sel) { const o = sel.options[sel.selectedIndex]; return o && o.value !== '' && o.value !== '-1' ? __clean(o.textContent) : null; }
    const inp = cell.querySelector('input:not([type=hidden]):not([type=submit]):not([type=file]):not([type=checkbox]), textarea');
    if (inp) return inp.value === '' ? null : inp.value;
    const t = __text(cell);
    return t === '' ? null : t;
  }
  return null;
};
const __q = (sel) => {
  // CSS, or Playwright-style 'CSS >> text=Name': the first match whose accessible name or text is Name
  const i = sel.indexOf(' >> text=');
  if (i < 0) return document.querySelector(sel);
  const want = __norm(sel.slice(i + 9));
  const name = (e) => e.getAttribute('aria-label') || e.value || e.innerText || e.textContent;
  const all = [...document.querySelectorAll(sel.slice(0, i))];
  return all.find((e) => __norm(name(e)) === want) || null;
};
const __waitQ = async (sel, limit = 5000) => {
  // the element of __q(sel), waited for: a control the page's script inserts after a change
  for (let t = 0; ; t += 50) {
    const el = __q(sel);
    if (el || t >= limit) return el;
    await new Promise((r) => setTimeout(r, 50));
  }
};
// a record drawn in labelled parts, not table cells (a card of "Author: bob", <dt>Author</dt><dd>bob</dd>, or
// <span class=label>Author</span> bob): the value of its part labelled `label` (alike as __norm has it: "Author:"
// is "author"), or null. An element whose text is the label alone labels the nodes after it, up to the next
// label of its kind (its tag and class); else the innermost part with a line that reads "Label: value"
const __LABEL_VALUE = /^([^:]{1,40}):\s*(.*)$/;
const __part = (row, label) => {
  const want = __norm(label);
  if (!want) return null;
  const parts = [row, ...row.querySelectorAll('*')].filter((e) => !/^(SCRIPT|STYLE|TEMPLATE)$/.test(e.tagName));
  for (const e of parts) {
    if (e === row || __norm(e.textContent) !== want) continue;
    let text = '';
    for (let n = e.nextSibling; n; n = n.nextSibling) {
      if (n.nodeType === 1 && n.tagName === e.tagName && n.className === e.className) break;
      text += ' ' + (n.nodeType === 1 ? __text(n) : n.nodeType === 3 ? n.textContent : '');
    }
    const v = __clean(text).replace(/^:\s*/, '');
    if (v) return v;
  }
  const read = (e) => {
    for (const line of (e.innerText || e.textContent || '').split('\n')) {
      const m = __clean(line).match(__LABEL_VALUE);
      if (m && __norm(m[1]) === want) return m[2];
    }
    return undefined;
  };
  const hits = parts.filter((e) => read(e) !== undefined);
  const inner = hits.find((e) => !hits.some((o) => o !== e && e.contains(o)));
  return (inner && read(inner)) || null;
};
// a row's cell that reads "Label: value" (a record's head row); a record that is no table row: its part (__part)
const __labeled = (row, label) => {
  if (!row.cells) return __part(row, label);
  const want = __norm(label);
  for (const c of row.cells) {
    const m = __clean(c.textContent).match(/^([^:]{1,40}):\s*(.*)$/);
    if (m && __norm(m[1]) === want) return m[2] === '' ? null : m[2];
  }
  return null;
};
// a column header's name: its link's text when it has one (a sorted column adds a priority number
// and remove/toggle links beside it), else its text, without a sort arrow (extract._header_label)
const __head = (c) => {
  const link = [...c.querySelectorAll('a[href]')].find((a) => __clean(a.textContent));
  return __clean((link || c).textContent).replace(/[\s\u2190-\u21ff\u25b2-\u25c5\u2b06\u2b07]+$/, '').replace(/:$/, '').trim();
};
// a table's header row, the rule of extract.lists._header_row (the same rule, kept so by
// tests/toolcache/test_header_rows.py): the first of its own rows, in document order, of head cells (th,
// or role=columnheader; at least two, one in a table with a thead) beside which only empty td cells stand
// (no text, no element: an actions column's head left blank), or a row of its thead whose head cells
// stand beside cells without text or a control; else a row of td cells that name the columns
// (__labelRow): the thead's first row, or the table's first row above a row of values
const __isHeadCell = (c) => c.tagName === 'TH' || c.getAttribute('role') === 'columnheader';
const __stays = (a) => /^[?#]/.test(a.getAttribute('href') || '');
const __labelCell = (c) => {
  const t = __clean(c.textContent);
  return !!t && t.length <= 40 && t.split(' ').length <= 5 && !/\d/.test(t)
    && !c.querySelector('input, select, textarea, button, img, table') && [...c.querySelectorAll('a[href]')].every(__stays);
};
const __checkboxCell = (c) => {
  const inputs = [...c.querySelectorAll('input')];
  return inputs.length > 0 && !__clean(c.textContent) && !c.querySelector('a, select, textarea, button')
    && inputs.every((i) => (i.getAttribute('type') || '') === 'checkbox');
};
const __dataLike = (r) => [...r.cells].some((c) => /\d/.test(c.textContent) || [...c.querySelectorAll('a[href]')].some((a) => a.getAttribute('href') && !__stays(a)));
const __labelRow = (r, least, thead, later) => {
  const cells = [...r.cells].filter((c) => !__checkboxCell(c));
  const named = cells.filter((c) => __clean(c.textContent));
  if (named.length < least || !named.every(__labelCell)) return false;
  if (cells.some((c) => !__clean(c.textContent) && c.children.length)) return false;
  if (thead && r.parentElement === thead) return true;
  // two columns, names all the way down the first: a record's keys ("Title | Owls", "Year | 2001"), not a list under
  // its header (a wider list may have a column of words: a priority, a status)
  if (r.cells.length === 2 && later.length && later.every((x) => !x.cells.length || __labelCell(x.cells[0]))) return false;
  return later.some((x) => x.cells.length === r.cells.length && __dataLike(x));
};
const __headRow = (table) => {
  if (!table) return null;
  const thead = table.tHead;
  const least = thead ? 1 : 2;
  const own = [...table.querySelectorAll(':scope > tr, :scope > thead > tr, :scope > tbody > tr, :scope > tfoot > tr')];
  const head = own.find((r) => {
    const cells = [...r.cells];
    const heads = cells.filter(__isHeadCell).length;
    if (heads >= least && cells.every((c) => __isHeadCell(c) || (!__clean(c.textContent) && !c.children.length))) return true;
    return !!thead && r.parentElement === thead && cells.length >= least && heads > 0
      && cells.every((c) => __isHeadCell(c) || (!__clean(c.textContent) && !c.querySelector('a, input, button, select')));
  });
  if (head || !own.length) return head || null;
  const first = own.find((r) => thead && r.parentElement === thead) || own[0];
  return __labelRow(first, least, thead, own.slice(own.indexOf(first) + 1)) ? first : null;
};
// a row of a list read from a table that is not its table's header row (a header of td cells matches
// the list's `tr:has(> td)` too)
const __notHead = (r) => r.tagName !== 'TR' || r !== __headRow(r.closest('table'));
const __cell = (row, label) => {
  if (!row.cells) return __part(row, label);  // a record drawn as labelled parts, no table row
  const head = __headRow(row.closest('table'));
  const i = head ? [...head.cells].findIndex((c) => __norm(__head(c)) === __norm(label)) : -1;
  if (i < 0 || !row.cells[i]) return null;
  const c = row.cells[i];
  // a cell showing an icon (a yes/no mark) says it in the image's alt text
  const t = __text(c) || __clean([...c.querySelectorAll('img[alt]')].map((m) => m.alt).join(' '));
  return t === '' ? null : t;
};
// a notice in an alert role whose own classes say it went well (Bootstrap's "alert alert-success": "Welcome
// alice!", a site's "ok-message") is no error; a class naming an error, a danger or a warning keeps it one
const __okNotice = (e) => {
  const c = String(e.getAttribute('class') || '').toLowerCase();
  return /(^|[\s_-])(success|ok|info|notice|confirm|confirmation|positive)($|[\s_-])/.test(c)
    && !/error|danger|fail|invalid|warn/.test(c);
};
// a message that tells how things stand is no error either, in whatever role: one in a status region
// (role=status or log, a polite live region, an <output>) or one that counts what was found ("There
// are 3 matching pages", "3 results", "No pages match"), unless its class or its words say error
const __ERROR_CLASS = /error|danger|invalid|fail|warn/i;
const __ERROR_WORDS = /\b(error|errors|invalid|required|fail|failed|failure|denied|forbidden|not allowed|must|cannot|can't|could ?n[o']t|unable|wrong|incorrect|expired|problem)\b/i;
const __COUNT_WORDS = /(^|\s)(\d[\d,.]*|no|one|zero)\s(.*\s)?(results?|match|matches|matching|found|items?|pages?|records?|rows?|entries|hits)\b|\b(showing|results?)\b.*\d/i;
const __statusNotice = (e) => {
  const text = __clean(e.textContent);
  if (__ERROR_CLASS.test(String(e.getAttribute('class') || '')) || __ERROR_WORDS.test(text)) return false;
  return !!e.closest('[role=status], [role=log], [aria-live=polite], output') || (text.length <= 120 && __COUNT_WORDS.test(text));
};
// a notice that a list has nothing to show ("There are no issues yet!", "No stores found.", "0 matching
// issues"): a short visible text in the page's content (not its chrome) saying there are no `names` (the
// list's items, in the singular and the plural) or no results, in words that say no error (a class may: Roundup
// draws its "no issues" notice in `text-error`). A list's pre_check takes it for an empty list, as it takes the
// list's table drawn with no rows; a page with neither is still not the list's
const __emptyNotice = (names) => {
  const alt = [...names, 'results?', 'matches', 'entries', 'records'].map((n) => n.replace(/[^A-Za-z0-9?]/g, '')).filter(Boolean).join('|');
  const says = new RegExp('(^|[^a-z0-9])(no|zero|0)\\s+([a-z]+\\s+)?(' + alt + ')([^a-z0-9]|$)', 'i');
  const chrome = 'nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]';
  return [...document.querySelectorAll('body p, body div, body span, body li, body td, body h2, body h3, body h4, body h5, body em, body strong')]
    .find((e) => {
      const text = __clean(e.textContent);
      return !!text && text.length <= 80 && says.test(text) && !__ERROR_WORDS.test(text) && __visible(e)
        && e.offsetParent !== null && !e.closest(chrome);
    }) || null;
};
const __errors = () => [...document.querySelectorAll('.error-message, .errormessage, .alert-danger, .error, [role=alert]')]
  .filter((e) => __visible(e) && e.offsetParent !== null && __clean(e.textContent) && !__okNotice(e) && !__statusNotice(e))
  .map((e) => __clean(e.textContent));
const __find = (els, nameOf, want) => {
  const w = __norm(want);
  if (!w) return null;
  // a number (a row's id) names one element exactly: 7 is not 70 nor 17
  if (/^-?\d+(\.\d+)?$/.test(__clean(want))) return els.find((e) => __clean(nameOf(e)) === __clean(want)) || null;
  return els.find((e) => __norm(nameOf(e)) === w) || els.find((e) => __norm(nameOf(e)).startsWith(w))
    || els.find((e) => __norm(nameOf(e)).includes(w)) || null;
};
const __row = (row) => {
  const head = __headRow(row.closest('table'));
  const out = {};
  [...row.cells].forEach((c, i) => { const h = head && head.cells[i] ? __head(head.cells[i]) : String(i); out[h || String(i)] = __text(c); });
  return out;
};
// what a field holds: its value, or the text of a contenteditable editor (which has no value);
// __holds: it holds `want` (an editor's text as drawn, its spacing aside)
const __fieldText = (el) => el.isContentEditable ? __clean(el.innerText) : el.value;
const __holds = (el, want) => el.isContentEditable ? __fieldText(el) === __clean(want) : el.value === String(want);
// the CodeMirror 5 editor that owns `el`: the one `el` is inside (its own input box), or the one
// made from the textarea `el` (CodeMirror.fromTextArea, which hides the textarea and writes its own
// text into it on submit, over whatever was set there): the editor right after it, or wherever a
// wrapper (SimpleMDE's toolbar before it) put it, told by the editor's own getTextArea()
const __codeMirrorOf = (el) => {
  const api = (w) => (w && w.CodeMirror && typeof w.CodeMirror.setValue === 'function' ? w.CodeMirror : null);
  const own = api(el.closest('.CodeMirror'));
  if (own) return own;
  if (el.tagName !== 'TEXTAREA') return null;
  const next = el.nextElementSibling;
  if (next && next.classList.contains('CodeMirror') && api(next)) return api(next);
  return [...document.querySelectorAll('.CodeMirror')].map(api)
    .find((cm) => cm && typeof cm.getTextArea === 'function' && cm.getTextArea() === el) || null;
};
let __typedIn = false;
// an element the page does not draw (in a tab panel not shown, a closed <details>, a collapsed
// section) takes no focus and no typed text: a rich-text editor's script never hears of an edit
// there, and its form is sent with the old text. __drawn(el, fn) shows `el` first as a person
// would: a closed <details> opened, the tab of a hidden tab panel clicked; what still hides it
// (the `hidden` attribute, display none) is lifted while fn runs and put back after it
const __hidersOf = (el) => {
  const out = [];
  for (let a = el; a && a !== document.documentElement; a = a.parentElement) if (a.hidden || getComputedStyle(a).display === 'none') out.push(a);
  return out;
};
const __tabOf = (panel) => {
  const byControls = panel.id ? document.querySelector(`[role=tab][aria-controls="${CSS.escape(panel.id)}"]`) : null;
  const by = (panel.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean).map((id) => document.getElementById(id));
  const tab = byControls || by.find((t) => t && t.getAttribute('role') === 'tab') || null;
  // a tab that is a link to another page (tabs the server draws), or a button that would send its
  // form, is no way to show this one
  const href = tab && tab.getAttribute('href');
  const sends = tab && (tab.tagName === 'BUTTON' || tab.tagName === 'INPUT') && tab.form && tab.type === 'submit';
  return tab && !sends && (!href || href.startsWith('#')) ? tab : null;
};
const __drawn = (el, fn) => {
  if (el.getClientRects().length) return fn();
  for (let d = el.closest('details:not([open])'); d; d = d.parentElement && d.parentElement.closest('details:not([open])')) d.open = true;
  for (const panel of __hidersOf(el)) { const tab = __tabOf(panel); if (tab) tab.click(); }
  if (el.getClientRects().length) return fn();
  const undo = __hidersOf(el).map((a) => {
    const hidden = a.hidden, display = a.style.getPropertyValue('display'), prio = a.style.getPropertyPriority('display');
    a.hidden = false;
    if (getComputedStyle(a).display === 'none') a.style.setProperty('display', 'block', 'important');
    return () => { a.style.setProperty('display', display, prio); a.hidden = hidden; };
  });
  try { return fn(); } finally { undo.reverse().forEach((put) => put()); }
};
// a code editor (CodeMirror) or rich text: replace its text as typing would
const __typeInto = (el, value) => {
  __typedIn = true;
  el.focus();
  // an empty editor has no text of its own to edit in place: an editor that keeps its text in a
  // model of its own and draws it (Draft.js) throws away text written into its DOM, and takes
  // text only as typed at its caret. Type it so: a textInput event, which such an editor takes
  // (it cancels the event and draws its model); one no handler took is inserted below
  if (!__clean(el.textContent) && String(value) && 'TextEvent' in window) {
    const typed = document.createEvent('TextEvent');
    typed.initTextEvent('textInput', true, true, window, String(value));
    if (!el.dispatchEvent(typed) || __clean(el.textContent)) return;
  }
  document.getSelection().selectAllChildren(el);
  document.execCommand('insertText', false, String(value));
};
const __setValue = (el, value, leave = false) => {
  // leave: focus, set, then blur as a person moving to the next field does (some widgets keep a
  // typed value only when the field loses focus)
  // a CodeMirror 5 editor over a textarea (its own hidden input box, or the textarea it replaced):
  // set the editor's text, which it copies back into the form field on submit
  const cm = __codeMirrorOf(el);
  if (cm) { cm.setValue(String(value)); return; }
  if (leave && !el.isContentEditable) { el.focus(); __setValue(el, value); el.blur(); return; }
  if (el.isContentEditable) { __drawn(el, () => __typeInto(el, value)); return; }
  const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, String(value));
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
};
// a rich-text editor keeps its text in a hidden field of its form, written on a timer after an
// edit (Draftail: 250 ms): the hidden fields' values before an edit, then wait (at most `limit` ms)
// until one of them changes, so a save sent next carries the edit (__typedIn: __setValue typed into one)
const __hiddenNow = () => [...document.querySelectorAll('input[type=hidden]')].map((f) => f.value);
const __editorSaved = async (before, limit = 2000) => {
  for (const t0 = Date.now(); Date.now() - t0 < limit && __hiddenNow().every((v, i) => v === before[i]);) await new Promise((r) => setTimeout(r, 25));
};
// a page that fills a field from another on a timer after an edit (a debounced handler: Wagtail
// writes a page's slug 100 ms after its title changes): __timed(fn) runs fn (the tool's edits) and
// notes the short timers the page sets meanwhile, and those their callbacks set in turn;
// __timersRan waits (at most `limit` ms) until they have run, so a form sent next carries what they wrote.
// Short: at most 300 ms, a reaction to the edit; a longer one is the page's own later work (Wagtail
// autosaves 500 ms after an edit), which the tool neither waits for nor sets off
const __timers = {pending: new Map(), plain: window.setTimeout, clear: window.clearTimeout};
const __timed = (fn) => {  // fn may be async: the timers are noted until it settles
  const {plain, clear} = __timers;
  if (window.setTimeout !== plain) return fn();  // already noting (a timer's callback inside __timed)
  window.setTimeout = function (cb, ms, ...rest) {
    if (typeof cb !== 'function' || Number(ms) > 300) return plain.call(window, cb, ms, ...rest);
    const id = plain.call(window, (...a) => { __timers.pending.delete(id); __timed(() => cb(...a)); }, ms, ...rest);
    __timers.pending.set(id, Date.now());
    return id;
  };
  window.clearTimeout = function (id) { __timers.pending.delete(id); return clear.call(window, id); };
  const restore = () => { window.setTimeout = plain; window.clearTimeout = clear; };
  let out;
  try { out = fn(); } catch (e) { restore(); throw e; }
  if (out && typeof out.then === 'function') return out.finally(restore);
  restore();
  return out;
};
const __timersRan = async (limit = 2000) => {
  for (const t0 = Date.now(); __timers.pending.size && Date.now() - t0 < limit;) await new Promise((r) => __timers.plain.call(window, r, 10));
};
// Enter in a field, as a browser answers it (HTML's implicit submission): nothing when the page's
// keydown handler took the key (`taken`) or the field is no single-line input of a form; else the
// form's default button (its first submit button) is clicked, and a disabled one submits nothing
// (a live search keeps Enter from reloading its page so); a form without one is submitted when it
// has no other field that blocks implicit submission. Returns whether the form was submitted.
const __BLOCKS_SUBMIT = new Set(['text', 'search', 'url', 'tel', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number']);
const __enterSubmits = (el, taken = false) => {
  const form = el && el.form;
  if (taken || !form || el.tagName !== 'INPUT') return false;
  const controls = [...form.elements];
  const isSubmit = (e) => (e.tagName === 'BUTTON' && (e.getAttribute('type') || 'submit').toLowerCase() === 'submit')
    || (e.tagName === 'INPUT' && ['submit', 'image'].includes((e.getAttribute('type') || '').toLowerCase()));
  const button = controls.find(isSubmit);
  if (button) {
    if (button.disabled) return false;
    button.click();
    return true;
  }
  const blocking = controls.filter((e) => e.tagName === 'INPUT' && __BLOCKS_SUBMIT.has((e.getAttribute('type') || 'text').toLowerCase()));
  if (blocking.length > 1) return false;
  if (typeof form.requestSubmit === 'function') form.requestSubmit(); else form.submit();
  return true;
};
// __net (defined before this file: agentjit.runtime.network.TRACK_JS) holds the page's fetch and
// XMLHttpRequest calls in flight: a redraw that waits on its data is not settled while the data is on its way
// requests begun less than `recent` ms before `since` or after it, still open (an older one is a poll)
const __busy = (since, recent = 2000) => [...__net.open.values()].some((t) => t >= since - recent);
const __settle = async (before, quiet = 300, limit = 10000) => {
  // a single-page app's redraw: the URL changes (when it will; a redraw waiting on its data moves
  // the URL when the data is in), then no request is on its way and the DOM stays still a moment
  const t0 = Date.now();
  while (before != null && location.href === before && (Date.now() - t0 < 1500 || __busy(t0)) && Date.now() - t0 < limit) {
    await new Promise((r) => setTimeout(r, 20));
  }
  let last = Date.now();
  const obs = new MutationObserver(() => { last = Date.now(); });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
  try {
    while ((Date.now() - last < quiet || __busy(t0)) && Date.now() - t0 < limit) {
      if (__busy(t0)) last = Date.now();
      await new Promise((r) => setTimeout(r, 30));
    }
  } finally { obs.disconnect(); }
};
// __watchWrites stays the last helper of this file: heal tells a tool's own code from the helpers
// it was built with by where this one ends (toolcache.heal_fill.own_code)
const __watchWrites = () => {
  const pending = [];
  const orig = window.fetch;
  window.fetch = function (...args) {
    const init = args[1] || {};
    const method = String(init.method || (args[0] && args[0].method) || 'GET').toUpperCase();
    const p = orig.apply(this, args);
    if (method !== 'GET') pending.push(p.then((r) => ({ok: r.ok, status: r.status}), (e) => ({ok: false, status: 0, error: String(e)})));
    return p;
  };
  return async (timeout) => {
    const t0 = Date.now();
    while (!pending.length && Date.now() - t0 < 300) await new Promise((r) => setTimeout(r, 10));
    window.fetch = orig;
    if (!pending.length) return {ok: false, status: 0, error: 'no request was sent'};
    const res = await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(() => r(null), timeout))]);
    if (!res) return {ok: false, status: 0, error: 'the request did not finish'};
    await new Promise((r) => setTimeout(r, 30));
    return res.find((x) => !x.ok) || res[res.length - 1];
  };
};
