"""Server-rendered HTML of the food site.

The DOM contract the tools rely on: ``<body data-page=...>`` on every page
(``data-store`` on store pages) and stable ``data-testid`` attributes on every
element a tool reads or touches. Store cards carry their facts as ``data-*``
attributes; item cards carry ``data-item-id``. No external assets.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .data import (
    BY_SLUG,
    CATEGORIES,
    RESTAURANTS,
    SECTIONS,
    MenuItem,
    Restaurant,
    category_slug,
    dollars,
)
from .state import FoodState

__all__ = [
    "home_page", "store_page", "category_page", "search_page", "cart_page",
    "checkout_page", "order_page", "error_page", "menu_item_json",
]

SITE_NAME = "Dashdish Local"

_CSS = """
body{font-family:system-ui,sans-serif;margin:0;color:#222}
header{display:flex;gap:1rem;align-items:center;padding:.6rem 1rem;background:#eb1700;color:#fff}
header a{color:#fff;text-decoration:none;font-weight:600}
main{padding:1rem}
.carousel{display:flex;gap:.6rem;overflow-x:auto;padding-bottom:.4rem}
.list{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:.6rem}
.card{display:block;border:1px solid #ddd;border-radius:8px;padding:.6rem;min-width:200px;color:inherit;text-decoration:none}
.chip{display:inline-block;border:1px solid #ccc;border-radius:16px;padding:.2rem .7rem;margin:.15rem;color:inherit;text-decoration:none}
.item{border:1px solid #ddd;border-radius:8px;padding:.6rem;cursor:pointer}
#item-modal{position:fixed;inset:10% 20%;background:#fff;border:1px solid #999;border-radius:10px;padding:1rem;overflow:auto;box-shadow:0 8px 40px #0005}
.muted{color:#666;font-size:.9em}
table{border-collapse:collapse}td,th{padding:.3rem .6rem;border-bottom:1px solid #eee;text-align:left}
"""

_COMMON_JS = """
function money(c){return '$'+(c/100).toFixed(2);}
function setCartCount(n){document.querySelectorAll('[data-testid=cart-count]').forEach(function(el){el.textContent=String(n);el.dataset.count=String(n);});}
"""


def _b(value: bool) -> str:
    return "true" if value else "false"


def _money(cents: int) -> str:
    return f"${cents / 100:.2f}"


def _json_script(element_id: str, data: Any) -> str:
    text = json.dumps(data).replace("</", "<\\/")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _layout(title: str, page: str, body: str, *, cart_count: int, store: str | None = None,
            script: str = "", query: str = "") -> str:
    store_attr = f' data-store="{escape(store)}"' if store else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} - {SITE_NAME}</title>
<style>{_CSS}</style></head>
<body data-page="{page}"{store_attr}>
<header data-testid="site-header">
<a data-testid="nav-home" href="/">{SITE_NAME}</a>
<form data-testid="search-form" action="/search" method="get" role="search">
<input data-testid="search-input" name="q" placeholder="Search stores and dishes" value="{escape(query)}">
<button data-testid="search-submit" type="submit">Search</button></form>
<a data-testid="cart-link" href="/cart">Cart (<span data-testid="cart-count" data-count="{cart_count}">{cart_count}</span>)</a>
</header>
<main>
{body}
</main>
<script>{_COMMON_JS}{script}</script>
</body></html>
"""


def _store_card(r: Restaurant) -> str:
    mode = f"Delivery {_money(r.delivery_fee)}" if r.delivery else "Pickup only"
    return (
        f'<a class="card" data-testid="store-card" data-store-slug="{r.slug}" data-name="{escape(r.name)}"'
        f' data-rating="{r.rating}" data-review-count="{r.review_count}" data-delivery="{_b(r.delivery)}"'
        f' data-pickup="{_b(r.pickup)}" data-category="{escape(r.category)}" data-cuisine="{escape(r.cuisine)}"'
        f' data-eta="{r.eta_min}" href="/store/{r.slug}">'
        f'<strong data-testid="store-name">{escape(r.name)}</strong><br>'
        f'<span class="muted">{escape(r.cuisine)} · ★ {r.rating} ({r.review_count:,} reviews)</span><br>'
        f'<span class="muted">{mode} · {r.eta_min} min</span></a>'
    )


def home_page(state: FoodState) -> str:
    chips = "".join(
        f'<a class="chip" data-testid="category-chip" data-category="{escape(c)}" href="/category/{category_slug(c)}">{escape(c)}</a>'
        for c in CATEGORIES
    )
    sections = []
    for name, slugs in SECTIONS.items():
        cards = "".join(_store_card(BY_SLUG[s]) for s in slugs)
        sections.append(
            f'<section data-testid="home-section" data-section="{escape(name)}"><h2>{escape(name)}</h2>'
            f'<div class="carousel">{cards}</div></section>'
        )
    all_cards = "".join(_store_card(r) for r in RESTAURANTS)
    sections.append(
        f'<section data-testid="home-section" data-section="All stores"><h2>All stores</h2>'
        f'<div class="list">{all_cards}</div></section>'
    )
    body = f'<nav data-testid="category-chips" aria-label="Categories">{chips}</nav>\n' + "\n".join(sections)
    return _layout("Home", "home", body, cart_count=state.cart_count)


def menu_item_json(item: MenuItem) -> dict[str, Any]:
    return {
        "id": item.id,
        "name": item.name,
        "price": item.price,
        "description": item.description,
        "options": [
            {"name": g.name, "kind": g.kind, "required": g.required,
             "choices": [{"label": c.label, "price_delta": c.price_delta} for c in g.choices]}
            for g in item.options
        ],
    }


_STORE_JS = """
var MENU=JSON.parse(document.getElementById('menu-data').textContent);
var STORE=document.body.dataset.store;
var modal=document.getElementById('item-modal');
var optBox=modal.querySelector('[data-testid=modal-options]');
var errBox=modal.querySelector('[data-testid=modal-error]');
var qtyBox=modal.querySelector('[data-testid=item-quantity]');
var noteBox=modal.querySelector('[data-testid=item-instructions]');
var addBtn=modal.querySelector('[data-testid=add-to-cart-button]');
var current=null;
function esc(s){var d=document.createElement('div');d.textContent=s;return d.innerHTML;}
function openItem(id){
  current=MENU.find(function(m){return m.id===id;});
  if(!current)return;
  modal.dataset.itemId=id;
  modal.querySelector('[data-testid=modal-item-name]').textContent=current.name;
  modal.querySelector('[data-testid=modal-item-description]').textContent=current.description;
  var base=modal.querySelector('[data-testid=modal-base-price]');
  base.textContent=money(current.price);base.dataset.value=(current.price/100).toFixed(2);
  var html='';
  current.options.forEach(function(g,gi){
    html+='<fieldset data-testid="option-group" data-group="'+esc(g.name)+'" data-kind="'+g.kind+'" data-required="'+g.required+'"><legend>'+esc(g.name)+(g.required?' (required)':'')+'</legend>';
    g.choices.forEach(function(c,ci){
      var type=g.kind==='single'?'radio':'checkbox';
      var checked=(g.kind==='single'&&ci===0)?' checked':'';
      var extra=c.price_delta?' (+'+money(c.price_delta)+')':'';
      html+='<label data-testid="option-choice" data-choice="'+esc(c.label)+'" data-price-delta="'+(c.price_delta/100).toFixed(2)+'"><input type="'+type+'" name="opt-'+gi+'" value="'+esc(c.label)+'"'+checked+'> '+esc(c.label)+extra+'</label> ';
    });
    html+='</fieldset>';
  });
  optBox.innerHTML=html;
  qtyBox.value='1';noteBox.value='';errBox.hidden=true;errBox.textContent='';
  modal.dataset.status='idle';
  modal.hidden=false;modal.dataset.open='true';
  updatePrice();
}
function closeModal(){modal.hidden=true;modal.dataset.open='false';modal.dataset.itemId='';current=null;}
function chosen(){
  var out={},delta=0;
  optBox.querySelectorAll('[data-testid=option-group]').forEach(function(fs){
    var vals=[];
    fs.querySelectorAll('input').forEach(function(inp){if(inp.checked){vals.push(inp.value);delta+=Math.round(parseFloat(inp.parentElement.dataset.priceDelta)*100);}});
    if(fs.dataset.kind==='single'){if(vals.length)out[fs.dataset.group]=vals[0];}else{out[fs.dataset.group]=vals;}
  });
  return {options:out,delta:delta};
}
function updatePrice(){
  if(!current)return;
  var c=chosen();var q=Math.max(1,parseInt(qtyBox.value||'1',10)||1);
  var el=modal.querySelector('[data-testid=modal-price]');
  el.textContent=money((current.price+c.delta)*q);el.dataset.value=((current.price+c.delta)*q/100).toFixed(2);
}
optBox.addEventListener('change',updatePrice);qtyBox.addEventListener('input',updatePrice);
document.querySelectorAll('[data-testid=menu-item]').forEach(function(card){card.addEventListener('click',function(){openItem(card.dataset.itemId);});});
modal.querySelector('[data-testid=modal-close]').addEventListener('click',closeModal);
addBtn.addEventListener('click',async function(){
  if(!current)return;
  var c=chosen();
  var body={store:STORE,item_id:current.id,options:c.options,quantity:parseInt(qtyBox.value||'1',10),instructions:noteBox.value};
  addBtn.disabled=true;modal.dataset.status='pending';
  try{
    var resp=await fetch('/api/cart',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify(body)});
    var data=await resp.json();
    if(resp.ok){
      setCartCount(data.cart_count);
      var toast=document.querySelector('[data-testid=cart-toast]');
      toast.textContent='Added '+data.line.item_name+' to cart';toast.hidden=false;
      toast.dataset.lineId=String(data.line.line_id);
      modal.dataset.status='added';closeModal();
    }else{errBox.textContent=data.error;errBox.hidden=false;modal.dataset.status='error';}
  }catch(e){errBox.textContent=String(e);errBox.hidden=false;modal.dataset.status='error';}
  addBtn.disabled=false;
});
var rv=document.querySelector('[data-testid=reviews]');
fetch('/api/stores/'+STORE+'/reviews').then(function(r){return r.json();}).then(function(d){
  var list=rv.querySelector('[data-testid=review-list]');
  list.innerHTML=d.reviews.map(function(x){
    return '<li data-testid="review" data-rating="'+x.rating+'"><strong data-testid="review-author">'+esc(x.author)+'</strong> <span data-testid="review-rating">'+x.rating+'</span>/5<p data-testid="review-text">'+esc(x.text)+'</p></li>';
  }).join('');
  rv.dataset.loaded='true';
}).catch(function(){rv.dataset.loaded='error';});
"""


def store_page(state: FoodState, r: Restaurant) -> str:
    modes = []
    if r.delivery:
        modes.append(f"Delivery · {_money(r.delivery_fee)} fee")
    if r.pickup:
        modes.append("Pickup")
    sections = ", ".join(r.sections) or "-"
    header = (
        f'<section data-testid="store-header" data-store-slug="{r.slug}" data-name="{escape(r.name)}"'
        f' data-rating="{r.rating}" data-review-count="{r.review_count}" data-delivery="{_b(r.delivery)}"'
        f' data-pickup="{_b(r.pickup)}" data-delivery-fee="{dollars(r.delivery_fee):.2f}" data-eta="{r.eta_min}"'
        f' data-category="{escape(r.category)}" data-cuisine="{escape(r.cuisine)}">'
        f'<h1 data-testid="store-title">{escape(r.name)}</h1>'
        f'<p><span data-testid="store-rating">★ {r.rating}</span> · '
        f'<span data-testid="store-review-count">{r.review_count:,} reviews</span> · {escape(r.cuisine)}</p>'
        f'<p data-testid="store-modes">{" · ".join(modes)} · <span data-testid="store-eta">{r.eta_min} min</span></p>'
        f'<p class="muted" data-testid="store-sections">Featured in: {escape(sections)}</p></section>'
    )
    items = "".join(
        f'<div class="item" data-testid="menu-item" data-item-id="{it.id}" data-item-name="{escape(it.name)}"'
        f' data-price="{dollars(it.price):.2f}" data-has-options="{_b(bool(it.options))}" role="button" tabindex="0">'
        f'<strong data-testid="menu-item-name">{escape(it.name)}</strong> '
        f'<span data-testid="menu-item-price">{_money(it.price)}</span>'
        f'<p class="muted" data-testid="menu-item-description">{escape(it.description)}</p></div>'
        for it in r.menu
    )
    modal = """
<div id="item-modal" data-testid="item-modal" role="dialog" hidden data-open="false" data-item-id="" data-status="idle">
<h3 data-testid="modal-item-name"></h3>
<p class="muted" data-testid="modal-item-description"></p>
<p>Base price: <span data-testid="modal-base-price"></span></p>
<div data-testid="modal-options"></div>
<p><label>Quantity <input data-testid="item-quantity" type="number" min="1" max="50" value="1"></label></p>
<p><label>Special instructions<br><textarea data-testid="item-instructions" rows="2" cols="40"></textarea></label></p>
<p data-testid="modal-error" role="alert" hidden></p>
<button type="button" data-testid="add-to-cart-button">Add to cart · <span data-testid="modal-price"></span></button>
<button type="button" data-testid="modal-close">Close</button>
</div>"""
    body = (
        header
        + '<p data-testid="cart-toast" role="status" hidden></p>'
        + f'<section data-testid="full-menu"><h2 data-testid="full-menu-heading">Full Menu</h2><div class="list">{items}</div></section>'
        + '<section data-testid="reviews" data-loaded="false"><h2>Reviews</h2><ul data-testid="review-list"><li class="muted">Loading reviews…</li></ul></section>'
        + modal
        + _json_script("menu-data", [menu_item_json(it) for it in r.menu])
    )
    return _layout(r.name, "store", body, cart_count=state.cart_count, store=r.slug, script=_STORE_JS)


def _store_list(stores: list[Restaurant], testid: str, extra: str = "") -> str:
    if not stores:
        return f'<section data-testid="{testid}"{extra}><p data-testid="no-results">No stores found.</p></section>'
    cards = "".join(_store_card(r) for r in stores)
    return f'<section data-testid="{testid}"{extra}><div class="list">{cards}</div></section>'


def category_page(state: FoodState, name: str, stores: list[Restaurant]) -> str:
    body = (
        f'<h1 data-testid="category-title" data-category="{escape(name)}">{escape(name)}</h1>'
        f'<p class="muted" data-testid="result-count">{len(stores)} stores</p>'
        + _store_list(stores, "store-list", f' data-category="{escape(name)}"')
    )
    return _layout(name, "category", body, cart_count=state.cart_count)


def search_page(state: FoodState, query: str, stores: list[Restaurant]) -> str:
    body = (
        f'<h1 data-testid="search-title">Results for “{escape(query)}”</h1>'
        f'<p class="muted" data-testid="result-count">{len(stores)} stores</p>'
        + _store_list(stores, "search-results", f' data-query="{escape(query)}"')
    )
    return _layout(f"Search {query}", "search", body, cart_count=state.cart_count, query=query)


def _options_text(options: dict[str, Any]) -> str:
    parts = []
    for k, v in options.items():
        if isinstance(v, list):
            if v:
                parts.append(f"{k}: {' + '.join(v)}")
        else:
            parts.append(f"{k}: {v}")
    return ", ".join(parts)


def _summary(t: dict[str, Any], prefix: str) -> str:
    rows = [("subtotal", "Subtotal"), ("delivery_fee", "Delivery fee"), ("service_fee", "Service fee"),
            ("fees", "Fees"), ("total", "Total")]
    return "".join(
        f'<tr><th>{label}</th><td data-testid="{prefix}-{key.replace("_", "-")}" data-value="{t[key]:.2f}">${t[key]:.2f}</td></tr>'
        for key, label in rows
    )


_CART_JS = """
document.querySelectorAll('[data-testid=remove-line]').forEach(function(btn){
  btn.addEventListener('click',async function(){
    var row=btn.closest('[data-testid=cart-line]');
    btn.disabled=true;
    var resp=await fetch('/api/cart/remove',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({line_id:parseInt(row.dataset.lineId,10)})});
    var data=await resp.json();
    if(!resp.ok){btn.disabled=false;row.dataset.error=data.error;return;}
    row.remove();
    var c=data.cart;
    setCartCount(c.count);
    ['subtotal','delivery_fee','service_fee','fees','total'].forEach(function(k){
      var el=document.querySelector('[data-testid=cart-'+k.replace('_','-')+']');
      if(el){el.dataset.value=c[k].toFixed(2);el.textContent='$'+c[k].toFixed(2);}
    });
    if(c.count===0){
      document.querySelector('[data-testid=cart-summary]').hidden=true;
      document.querySelector('[data-testid=cart-empty]').hidden=false;
      var link=document.querySelector('[data-testid=checkout-link]');if(link)link.remove();
    }
  });
});
"""


def cart_page(state: FoodState) -> str:
    cart = state.cart_json()
    rows = "".join(
        f'<tr data-testid="cart-line" data-line-id="{ln["line_id"]}" data-item-name="{escape(ln["item_name"])}"'
        f' data-store-slug="{ln["store"]}" data-quantity="{ln["quantity"]}" data-unit-price="{ln["unit_price"]:.2f}"'
        f' data-line-total="{ln["line_total"]:.2f}" data-options="{escape(json.dumps(ln["options"]))}">'
        f'<td data-testid="cart-line-name">{escape(ln["item_name"])}</td>'
        f'<td class="muted" data-testid="cart-line-options">{escape(_options_text(ln["options"]))}</td>'
        f'<td data-testid="cart-line-quantity">×{ln["quantity"]}</td>'
        f'<td data-testid="cart-line-total">${ln["line_total"]:.2f}</td>'
        f'<td><button type="button" data-testid="remove-line">Remove</button></td></tr>'
        for ln in cart["lines"]
    )
    empty = not cart["lines"]
    store = BY_SLUG[cart["store"]] if cart["store"] else None
    store_line = f'<p data-testid="cart-store" data-store-slug="{store.slug}">From {escape(store.name)}</p>' if store else ""
    body = (
        '<h1>Your cart</h1>' + store_line
        + f'<p data-testid="cart-empty"{"" if empty else " hidden"}>Your cart is empty.</p>'
        + f'<table data-testid="cart-lines">{rows}</table>'
        + f'<table data-testid="cart-summary"{" hidden" if empty else ""}>{_summary(cart, "cart")}</table>'
        + ("" if empty else '<p><a data-testid="checkout-link" href="/checkout">Checkout</a></p>')
    )
    return _layout("Cart", "cart", body, cart_count=state.cart_count, script=_CART_JS)


_CHECKOUT_JS = """
var form=document.querySelector('[data-testid=checkout-form]');
if(form){form.addEventListener('change',function(){
  var mode=form.querySelector('input[name=mode]:checked').value;
  var el=document.querySelector('[data-testid=checkout-total]');
  var v=el.dataset['total'+(mode==='delivery'?'Delivery':'Pickup')];
  el.dataset.value=v;el.textContent='$'+v;
});}
"""


def checkout_page(state: FoodState) -> str:
    cart = state.cart_json()
    if not cart["lines"]:
        body = '<h1>Checkout</h1><p data-testid="checkout-empty">Your cart is empty.</p><a data-testid="nav-home-link" href="/">Browse stores</a>'
        return _layout("Checkout", "checkout", body, cart_count=0)
    store = BY_SLUG[cart["store"]]
    delivery = state.totals("delivery") if store.delivery else None
    pickup = state.totals("pickup") if store.pickup else None
    default = delivery or pickup
    assert default is not None
    lines = "".join(
        f'<li data-testid="checkout-line" data-item-name="{escape(ln["item_name"])}" data-quantity="{ln["quantity"]}">'
        f'{escape(ln["item_name"])} ×{ln["quantity"]} · ${ln["line_total"]:.2f}</li>'
        for ln in cart["lines"]
    )
    radios = ""
    if store.delivery:
        radios += '<label data-testid="mode-delivery"><input type="radio" name="mode" value="delivery" checked> Delivery</label> '
    if store.pickup:
        checked = "" if store.delivery else " checked"
        radios += f'<label data-testid="mode-pickup"><input type="radio" name="mode" value="pickup"{checked}> Pickup</label>'
    totals_attrs = ""
    if delivery:
        totals_attrs += f' data-total-delivery="{delivery["total"]:.2f}"'
    if pickup:
        totals_attrs += f' data-total-pickup="{pickup["total"]:.2f}"'
    body = (
        f'<h1>Checkout</h1><p data-testid="checkout-store" data-store-slug="{store.slug}">{escape(store.name)}</p>'
        f'<ul data-testid="checkout-lines">{lines}</ul>'
        f'<form data-testid="checkout-form" method="post" action="/checkout/place">'
        f'<fieldset data-testid="mode-options"><legend>How do you want it?</legend>{radios}</fieldset>'
        f'<p><label>Address <input data-testid="address-input" name="address" value="1 Market St, San Francisco"></label></p>'
        f'<p>Subtotal <span data-testid="checkout-subtotal" data-value="{default["subtotal"]:.2f}">${default["subtotal"]:.2f}</span></p>'
        f'<p>Total <strong data-testid="checkout-total" data-value="{default["total"]:.2f}"{totals_attrs}>${default["total"]:.2f}</strong></p>'
        f'<button type="submit" data-testid="place-order-button">Place order</button></form>'
    )
    return _layout("Checkout", "checkout", body, cart_count=state.cart_count, script=_CHECKOUT_JS)


def order_page(state: FoodState, order: dict[str, Any]) -> str:
    lines = "".join(
        f'<li data-testid="order-line" data-item-name="{escape(ln["item_name"])}" data-quantity="{ln["quantity"]}"'
        f' data-line-total="{ln["line_total"]:.2f}">{escape(ln["item_name"])} ×{ln["quantity"]}'
        f' <span class="muted">{escape(_options_text(ln["options"]))}</span> · ${ln["line_total"]:.2f}</li>'
        for ln in order["lines"]
    )
    body = (
        f'<section data-testid="order-confirmation" data-order-id="{order["id"]}">'
        f'<h1>Order placed</h1><p>Order <strong data-testid="order-id">{order["id"]}</strong> from '
        f'<span data-testid="order-store" data-store-slug="{order["store"]}">{escape(order["store_name"])}</span>'
        f' · <span data-testid="order-mode">{order["mode"]}</span></p>'
        f'<ul data-testid="order-lines">{lines}</ul>'
        f'<p>Subtotal <span data-testid="order-subtotal" data-value="{order["subtotal"]:.2f}">${order["subtotal"]:.2f}</span>'
        f' · Fees <span data-testid="order-fees" data-value="{order["fees"]:.2f}">${order["fees"]:.2f}</span></p>'
        f'<p>Total <strong data-testid="order-total" data-value="{order["total"]:.2f}">${order["total"]:.2f}</strong></p>'
        f'</section><p><a data-testid="nav-home-link" href="/">Back to stores</a></p>'
    )
    return _layout(f"Order {order['id']}", "order", body, cart_count=state.cart_count)


def error_page(state: FoodState, status: int, message: str) -> str:
    body = f'<h1 data-testid="error-status">{status}</h1><p data-testid="error-message">{escape(message)}</p><a href="/">Home</a>'
    return _layout("Error", "error", body, cart_count=state.cart_count)
