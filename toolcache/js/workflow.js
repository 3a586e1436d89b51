// The replayer of workflow tools (toolcache/workflow.py). A workflow's steps are data (__steps, one
// literal the builder encoded); nothing here is generated. Needs prelude.js and agentjit's
// ELEMENT_HELPERS_JS (implicit, clean, labelOf, sig) before it.
//
// A step: {action, target, input, value, navigates}. A target names one element the way a person
// would: `group` + the item named by the input (one of several similar items), `testid`, `role` and
// accessible `name`, the field's `label` (placeholder, aria-label, <label>), its `text`, a button
// input's `value`, then the recorder's `selector`, and last the role alone. `inner` narrows a click
// inside the item (a row's Delete button); its `nameFor` / `textFor` hold the row's name as a blank,
// `{item}` ("More options for '{item}'").
const __wfShown = (el) => {
  if (!el || !el.isConnected || el.closest('[hidden],[aria-hidden=true]')) return false;
  if (!el.getClientRects().length) return false;
  const st = getComputedStyle(el);
  return st.visibility !== 'hidden' && st.display !== 'none';
};
const __wfAll = (sel, root = document) => { try { return [...root.querySelectorAll(sel)]; } catch (e) { return []; } };
const __wfOwnText = (el) => clean(el.innerText || el.textContent);
const __wfLabels = (el) => [el.getAttribute('aria-label'), el.getAttribute('placeholder'), el.getAttribute('title'),
  ...[...(el.labels || [])].map((l) => clean(l.textContent))].filter((x) => x);
const __wfRole = (e) => e.getAttribute('role') || implicit(e);
const __wfMatch = (t, root, self) => {
  // the elements under `root` (and `root` itself when `self`) that `t` names, strictest way first;
  // cheap filters (a tag, a role, the text content) run before the costly ones (innerText, labels)
  const under = (sel) => [...(self && root.matches && root.matches(sel) ? [root] : []), ...__wfAll(sel, root)];
  const tagged = () => under(t.tag ? CSS.escape(t.tag) : '*');
  const ways = [];
  if (t.testid) ways.push(() => under('[data-testid]').filter((e) => e.getAttribute('data-testid') === t.testid
    && (t.name == null || __same(labelOf(e), t.name))));
  if (t.role && t.name != null) ways.push(() => under('*').filter((e) => __wfRole(e) === t.role && __same(labelOf(e), t.name)));
  if (t.label != null) ways.push(() => under('input, textarea, select, [contenteditable]').filter((e) => __wfLabels(e).some((l) => __same(l, t.label))));
  if (t.inputName != null) ways.push(() => tagged().filter((e) => e.getAttribute('name') === t.inputName));
  if (t.text != null) ways.push(() => {
    // the innermost elements whose text is the target's (a label's text, not its container's)
    const hits = tagged().filter((e) => __same(clean(e.textContent), t.text));
    return hits.filter((e) => !hits.some((o) => o !== e && e.contains(o)));
  });
  if (t.value != null) ways.push(() => under('input').filter((e) => __same(e.value, t.value)));
  if (t.selector) ways.push(() => __wfAll(t.selector, root));
  if (t.role && t.name == null && t.text == null) ways.push(() => tagged().filter((e) => __wfRole(e) === t.role));
  if (t.tag && !ways.length) ways.push(tagged);
  for (const way of ways) {
    const hits = way();
    const shown = hits.filter(__wfShown);
    if (shown.length) return shown;
    if (hits.length) return hits;
  }
  return [];
};
const __wfRowName = (row) => {
  // a row's name as the builder read it: its first link's text, else its first cell's
  const link = [...row.querySelectorAll('a[href]')].find((a) => clean(a.textContent));
  if (link) return clean(link.textContent);
  const cell = [...row.querySelectorAll('th, td')].find((c) => clean(c.textContent));
  return cell ? clean(cell.textContent) : '';
};
const __wfItems = (t) => __wfAll(t.group).filter(__wfShown);
const __wfLocate = (t, want) => {
  // the element `t` names, or [null, why]
  if (t.group) {
    const items = __wfItems(t);
    if (!items.length) return [null, 'none of the items is shown'];
    const item = __find(items, (x) => __wfOwnText(x), want);
    if (!item) return [null, 'no item matches ' + JSON.stringify(want) + '; have: ' + items.slice(0, 20).map(__wfOwnText).join(', ')];
    if (!t.inner) return [item, ''];
    // a control named after its row ("More options for 'Owls Guide'"): the row's name in the blank
    const fill = (pattern) => pattern.split('{item}').join(__wfRowName(item) || want);
    const spec = {...t.inner};
    if (spec.nameFor != null) spec.name = fill(spec.nameFor);
    if (spec.textFor != null) spec.text = fill(spec.textFor);
    const inner = __wfMatch(spec, item, true);
    return inner.length ? [inner[0], ''] : [null, 'the item ' + JSON.stringify(want) + ' has no such control'];
  }
  const hits = __wfMatch(t, document, false);
  return hits.length ? [hits[0], ''] : [null, 'no element matches ' + JSON.stringify(t)];
};
const __wfFind = async (t, want, waitMs) => {
  const t0 = Date.now();
  for (;;) {
    const [el, why] = __wfLocate(t, want);
    if (el || Date.now() - t0 >= waitMs) { if (!el) throw new Error(why); return el; }
    await new Promise((r) => setTimeout(r, 50));
  }
};
const __wfClick = (el) => {
  el.scrollIntoView({block: 'center'});
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup']) {
    el.dispatchEvent(new (type.startsWith('pointer') && window.PointerEvent ? PointerEvent : MouseEvent)(type, {bubbles: true, cancelable: true, view: window}));
  }
  el.click();
};
const __wfPress = (el, key) => {
  const at = el || document.activeElement || document.body;
  let taken = false;
  for (const type of ['keydown', 'keypress', 'keyup']) {
    const sent = at.dispatchEvent(new KeyboardEvent(type, {key, bubbles: true, cancelable: true}));
    if (type !== 'keyup') taken = taken || !sent;
  }
  // a synthetic Enter submits no form: submit it as the browser would (or would not)
  if (key === 'Enter') __enterSubmits(at, taken);
};
const __wfAct = (s, el, value) => {
  if (s.action === 'click') __wfClick(el);
  else if (s.action === 'check') { if (!el.checked) __wfClick(el); }
  else if (s.action === 'fill') __setValue(el, value == null ? '' : value, true);
  else if (s.action === 'select') {
    const o = [...el.options].find((x) => x.value === String(value)) || [...el.options].find((x) => __same(x.textContent, value));
    if (!o) throw new Error('no choice ' + JSON.stringify(value));
    __setValue(el, o.value);
  } else if (s.action === 'press') __wfPress(el, value);
  else if (s.action === 'scroll') { if (el) el.scrollIntoView({block: 'center'}); else window.scrollBy(0, Number(value) || 600); }
};
const __wfRun = async (steps, inputs) => {
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const value = s.input != null ? inputs[s.input] : s.value;
    if (s.action === 'wait' && !s.target) { await new Promise((r) => setTimeout(r, Math.min(Number(value) || 0, 5000))); continue; }
    const el = s.target ? await __wfFind(s.target, s.target.group ? value : null, 5000) : null;
    if (s.navigates) { setTimeout(() => __wfAct(s, el, value), 0); return {success: true}; }
    const held = s.action === 'fill' && el && el.isContentEditable ? __hiddenNow() : null;
    // an edit's timers (a field the page derives from this one) run before the next step
    if (['fill', 'select', 'check'].includes(s.action)) __timed(() => __wfAct(s, el, value)); else __wfAct(s, el, value);
    if (held && held.length) await __editorSaved(held);
    await __timersRan();
    await __settle(null, 100, 5000);
  }
  return {success: true};
};
