const __ROUTES = [];
const __pageOf = (href) => {
  const u = new URL(href, location.href);
  const seg = (s) => {
    let m = s.match(/^([A-Za-z_-]*?)-?(\d+)$/);
    if (m) return m[1] ? m[1] + '{id}' : '{id}';
    if (/^(?=.*\d)[0-9a-fA-F-]{6,}$/.test(s)) return '{id}';
    if (/[A-Z:@\s]/.test(s)) return '{name}';
    return s.replace(/[^A-Za-z0-9_{}]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase() || 'x';
  };
  let parts = u.pathname.split('/').filter(Boolean).map((p) => seg(decodeURIComponent(p)));
  // routes the builder learned (library/{name}): their variable segments are {name}
  for (const route of __ROUTES) {
    const pat = route.split('/');
    if (parts.length >= pat.length && pat.every((p, i) => p === '{name}' || p === parts[i])) {
      parts = parts.map((x, i) => (i < pat.length && pat[i] === '{name}' && !x.includes('{') ? '{name}' : x));
      break;
    }
  }
  let name = parts.length ? parts.join('_') : 'home';
  if (!(parts.length ? parts[parts.length - 1] : '').includes('{id}')) {
    for (const key of ['@template', 'template', 'view', 'tab']) {
      const v = u.searchParams.get(key);
      if (v) { name += '_' + seg(v); break; }
    }
  }
  return name;
};
const __page = () => (document.body && document.body.dataset.page) || __pageOf(location.href);
