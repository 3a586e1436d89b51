const __ROUTES = [];
// a state value in its safe alphabet: toolcache.literal.state_value
const __safe = (s) => String(s ?? '').split(/(\{id\}|\{name\})/)
  .map((p, i) => (i % 2 ? p : p.replace(/[^A-Za-z0-9_]+/g, '_'))).join('').replace(/^_+|_+$/g, '').slice(0, 100);
// percent-decoding as Python's urllib.parse.unquote does it (bad UTF-8 becomes U+FFFD, never an error)
const __unquote = (s) => s.replace(/(?:%[0-9A-Fa-f]{2})+/g,
  (m) => new TextDecoder('utf-8', {ignoreBOM: true}).decode(new Uint8Array(m.slice(1).split('%').map((h) => parseInt(h, 16)))));
const __pageOf = (href) => {
  const u = new URL(href, location.href);
  const seg = (s) => {
    let m = s.match(/^([A-Za-z_-]*?)-?([0-9]+)$/);
    if (m) return m[1] ? m[1] + '{id}' : '{id}';
    if (/^(?=.*[0-9])[0-9a-fA-F-]{6,}$/.test(s)) return '{id}';
    if (/[A-Z:@\t\n\v\f\r ]/.test(s)) return '{name}';
    return s.replace(/[^A-Za-z0-9_{}]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase() || 'x';
  };
  let parts = u.pathname.split('/').filter(Boolean).map((p) => seg(__unquote(p)));
  // routes the builder learned (library/{name}): their variable segments are {name}
  for (const route of __ROUTES) {
    if (route.includes('#')) continue;  // a page variant (__variant), not a path template
    const pat = route.split('/');
    if (parts.length >= pat.length && pat.every((p, i) => p === '{name}' || p === parts[i])) {
      parts = parts.map((x, i) => (i < pat.length && pat[i] === '{name}' && !x.includes('{') ? '{name}' : x));
      break;
    }
  }
  let name = parts.length ? parts.join('_') : 'home';
  if (!(parts.length ? parts[parts.length - 1] : '').includes('{id}')) {
    for (const key of ['@template', 'template', 'view', 'tab', 'action']) {
      const v = u.searchParams.get(key);
      if (v) { name += '_' + seg(v); break; }
    }
  }
  return __safe(name) || 'x';
};
// the main heading's words (toolcache.pages.heading_slug): the first h1 outside the site chrome
const __headingSlug = () => {
  const h = [...document.querySelectorAll('h1')].find((x) => !x.closest('nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]'));
  return h ? h.textContent.toLowerCase().replace(/[^a-z]+/g, '_').replace(/^_+|_+$/g, '') : '';
};
// a page the same URL serves in another shape, named by its heading (toolcache.pages.page_variant)
const __variant = (p) => {
  const slug = __headingSlug();
  return slug && __ROUTES.includes(p + '#' + slug) ? (__safe(p + '_' + slug.slice(0, 40).replace(/^_+|_+$/g, '')) || p) : p;
};
const __page = () => __safe(document.body && document.body.dataset.page) || __variant(__pageOf(location.href));
