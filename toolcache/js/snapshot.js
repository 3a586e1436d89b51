// The page's HTML as a snapshot (what page.content() gives), with every element the browser does not
// render as the step ends marked `data-aj-unrendered`: shown by no box (display: none, from the
// element or its stylesheet, which a DOM snapshot does not carry), made invisible (visibility:
// hidden), or a box of zero width or height that clips what it holds. Only the outermost such element is marked; the marks go on a copy, never
// on the live page. A list of them (a closed date picker's calendar, a bulk-action bar waiting for a
// ticked row) is nothing the page shows, so no tool is made of it (toolcache.extract.lists._concealed).
() => {
  const root = document.documentElement;
  const copy = root.cloneNode(true);
  const live = [...root.querySelectorAll('body *')];
  const twins = [...copy.querySelectorAll('body *')];
  const skip = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'LINK', 'META', 'BR', 'WBR', 'OPTION', 'OPTGROUP']);
  const hidden = new Set();
  const unrendered = (el) => {
    // (visibility: hidden too: a bar slid out of view and hidden until a row is ticked)
    if (el.checkVisibility ? !el.checkVisibility({visibilityProperty: true}) : !el.getClientRects().length) return true;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return false;
    const st = getComputedStyle(el);
    return st.display !== 'contents' && ['hidden', 'clip'].includes(st.overflow) && !!el.firstElementChild;
  };
  if (live.length === twins.length) {
    for (let i = 0; i < live.length; i++) {
      const el = live[i];
      if (skip.has(el.tagName) || el.closest('svg') !== null && el.tagName.toLowerCase() !== 'svg') continue;
      if (el.parentElement && hidden.has(el.parentElement)) { hidden.add(el); continue; }
      if (unrendered(el)) {
        hidden.add(el);
        twins[i].setAttribute('data-aj-unrendered', '');
      }
    }
  }
  const type = document.doctype;
  return (type ? '<!DOCTYPE ' + type.name + (type.publicId ? ' PUBLIC "' + type.publicId + '"' : '')
    + (type.systemId ? (type.publicId ? '' : ' SYSTEM') + ' "' + type.systemId + '"' : '') + '>' : '') + copy.outerHTML;
};
