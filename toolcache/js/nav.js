// Helpers of the tools that move along one page type: filter links, sort headers, numbered pages.
// Each is the browser side of a rule in toolcache/extract.py (named beside it).
const __samePage = (a) => {
  // the link only changes this page's query (extract.is_same_page_href)
  const href = a.getAttribute('href') || '';
  if (!href || href.startsWith('#') || href.startsWith('javascript:')) return false;
  const u = new URL(a.href, location.href);
  return (!!u.search || href.startsWith('?')) && u.pathname === location.pathname && u.host === location.host && __pageOf(u.href) === __pageOf(location.href);
};
const __PAGER = /^(next|previous|prev|older|newer|more|load more|show more)\b|^[\u2039\u203a\u00ab\u00bb<>]+$/i;
// a pager link's text (extract.PAGER_WORDS): in no group, and counts for none
const __leadStrong = (n) => {
  // a box led by a bold title that holds no link (extract._lead_strong)
  if (!/^(P|DIV|SPAN|HEADER)$/.test(n.tagName)) return null;
  const first = n.firstElementChild;
  if (!first || !/^(STRONG|B)$/.test(first.tagName) || first.querySelector('a')) return null;
  const own = [...n.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join('');
  return own.trim() ? null : first;
};
const __isGroupHead = (n) => {
  const t = __clean(n.textContent);
  return /^(H[1-6]|SUMMARY|LEGEND|CAPTION|DT|LABEL)$/.test(n.tagName) || n.getAttribute('role') === 'heading' || !!__leadStrong(n)
    || (!/^(A|UL|OL|LI)$/.test(n.tagName) && t.length > 0 && t.length <= 40 && t.endsWith(':') && !n.querySelector('a'));
};
const __headName = (head) => {
  // what a group head calls its group; a count ("320 rows") is no name (extract._head_name)
  const lead = __leadStrong(head);
  const text = lead ? __clean(lead.textContent).replace(/(\s+\d[\d,.]*)+$/, '') : __clean(head.textContent);
  return /^\d[\d,.]*(\s|$)/.test(text) ? '' : text;
};
const __linkGroup = (a) => {
  // the name of the sibling links a same-page link sits among (extract.link_group)
  if (__PAGER.test(__clean(a.textContent))) return null;
  let branch = a;
  let anc = a.parentElement;
  for (let depth = 0; anc && depth < 5; depth++, branch = anc, anc = anc.parentElement) {
    if (/^(BODY|FORM|TABLE|TR)$/.test(anc.tagName)) return null;
    if (![...anc.querySelectorAll('a[href]')].some((x) => x !== a && __samePage(x) && !__PAGER.test(__clean(x.textContent)))) continue;
    let head = null;
    for (const sib of [...anc.children].slice(0, [...anc.children].indexOf(branch))) if (__isGroupHead(sib)) head = sib;
    if (!head && anc.parentElement) {
      const sibs = [...anc.parentElement.children];
      head = sibs.slice(0, sibs.indexOf(anc)).reverse().find(__isGroupHead) || null;
    }
    const name = (head ? __headName(head) : '') || anc.getAttribute('aria-label') || anc.id || [...anc.classList][0] || '';
    return name.replace(/:$/, '').trim() || null;
  }
  return null;
};
const __groupLinks = (group) => [...document.querySelectorAll('a[href]')]
  .filter((a) => __samePage(a) && __clean(a.textContent) && !/^\d+$/.test(__clean(a.textContent)) && __same(__linkGroup(a), group));
const __chosen = (a) => {
  // the link (or its list item) is marked as its group's current choice
  for (const n of [a, a.parentElement, a.closest('li')].filter(Boolean)) {
    if (n.getAttribute('aria-current') && n.getAttribute('aria-current') !== 'false') return true;
    if (n.getAttribute('aria-selected') === 'true' || n.getAttribute('aria-pressed') === 'true') return true;
    if (/(^|[-_\s])(selected|active|current|checked|chosen)($|[-_\s])/i.test(n.getAttribute('class') || '')) return true;
  }
  return false;
};
const __sortState = (th) => {
  // which way a column header says its column is sorted (extract._sort_state)
  const aria = th.getAttribute('aria-sort');
  if (aria === 'ascending' || aria === 'descending') return aria;
  const marks = [th, ...th.querySelectorAll('*')].map((n) => n.getAttribute('class') || '').join(' ') + ' ' + __clean(th.textContent);
  if (/(^|[-_\s])(asc|ascending|sorted-asc)($|[-_\s])|[\u25b2\u2191\u2b06]/i.test(marks)) return 'ascending';
  if (/(^|[-_\s])(desc|descending|sorted-desc)($|[-_\s])|[\u25bc\u2193\u2b07]/i.test(marks)) return 'descending';
  return null;
};
const __pageLinks = () => [...document.querySelectorAll('a[href]')].filter((a) => __samePage(a) && /^\d+$/.test(__clean(a.textContent)));
