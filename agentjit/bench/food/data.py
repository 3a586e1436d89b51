"""The food site's catalogue: restaurants, menus, reviews and home-page sections.

The stores the paper's Dashdish tasks name (Stonemill Matcha, Winstop, Man vs.
Fries, McDonald's, Popeyes, Ike's, Petco) and the stores the tasks lean on
(tacos, subs, the "Costume party ready" trio, the first five of "Best near
you") are written by hand; about twenty more are generated from templates with
a fixed seed, so the catalogue is identical on every machine and run. Task
answers are computed from this module, never typed in as strings.

Prices are integer cents; :func:`dollars` turns them into the floats the site
shows and the API returns.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

T = TypeVar("T")

__all__ = [
    "Choice",
    "OptionGroup",
    "MenuItem",
    "Review",
    "Restaurant",
    "CATEGORIES",
    "SECTIONS",
    "RESTAURANTS",
    "BY_SLUG",
    "DATA_SEED",
    "dollars",
    "category_slug",
    "category_by_slug",
    "normalize",
    "find_store",
    "stores_in_category",
    "search_stores",
    "sections_of",
]

DATA_SEED = 20240611
"""Seed of the generated part of the catalogue (not the site's latency seed)."""


@dataclass(frozen=True)
class Choice:
    label: str
    price_delta: int = 0  # cents


@dataclass(frozen=True)
class OptionGroup:
    """A customization: ``single`` groups are radios (first choice is the default), ``multi`` checkboxes."""

    name: str
    kind: Literal["single", "multi"]
    choices: tuple[Choice, ...]
    required: bool = False

    def choice(self, label: str) -> Choice | None:
        return _named(self.choices, label, lambda c: c.label)


@dataclass(frozen=True)
class MenuItem:
    id: str
    name: str
    price: int  # cents
    description: str
    options: tuple[OptionGroup, ...] = ()
    tags: frozenset[str] = frozenset()

    def group(self, name: str) -> OptionGroup | None:
        return _named(self.options, name, lambda g: g.name)


@dataclass(frozen=True)
class Review:
    author: str
    rating: int
    text: str


@dataclass(frozen=True)
class Restaurant:
    slug: str
    name: str
    category: str
    cuisine: str
    rating: float
    review_count: int
    delivery: bool
    pickup: bool
    delivery_fee: int  # cents
    eta_min: int
    menu: tuple[MenuItem, ...]
    reviews: tuple[Review, ...]
    sections: tuple[str, ...] = field(default=())

    def item(self, name_or_id: str) -> MenuItem | None:
        by_id = next((it for it in self.menu if it.id == name_or_id), None)
        return by_id or _named(self.menu, name_or_id, lambda it: it.name)


def _named(things: Iterable[T], name: str, key: Callable[[T], str]) -> T | None:
    """The first of ``things`` whose ``key`` matches ``name`` case- and space-insensitively."""
    want = normalize(name)
    return next((x for x in things if normalize(key(x)) == want), None)


def dollars(cents: int) -> float:
    return round(cents / 100, 2)


def normalize(text: str) -> str:
    """Case-, punctuation- and ``&``-insensitive key: ``"Ike's Love & Sandwiches"`` -> ``"ikesloveandsandwiches"``."""
    return re.sub(r"[^a-z0-9]", "", text.lower().replace("&", "and"))


def category_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# -- option groups ------------------------------------------------------------

def _g(name: str, kind: Literal["single", "multi"], *choices: tuple[str, int], required: bool = False) -> OptionGroup:
    return OptionGroup(name, kind, tuple(Choice(label, delta) for label, delta in choices), required)


DRINK_SIZE = _g("Size", "single", ("Regular", 0), ("Large", 100), required=True)
MILK = _g("Milk", "single", ("Whole", 0), ("Oat", 75), ("Almond", 75), required=True)
FRIES_SIZE = _g("Size", "single", ("Regular", 0), ("Large", 150), required=True)
SPICE = _g("Spice", "single", ("Mild", 0), ("Medium", 0), ("Hot", 0), required=True)
SALSA = _g("Salsa", "single", ("Verde", 0), ("Roja", 0), ("Habanero", 0), required=True)
TACO_ADDONS = _g("Add-ons", "multi", ("Guacamole", 125), ("Extra cheese", 75), ("Grilled onions", 50))
BREAD = _g("Bread", "single", ("Dutch Crunch", 0), ("Sourdough", 0), ("Wheat", 0), required=True)
SUB_SIZE = _g("Size", "single", ("6 inch", 0), ("12 inch", 500), required=True)
SUB_ADDONS = _g("Add-ons", "multi", ("Avocado", 150), ("Bacon", 200), ("Extra meat", 300))
PIZZA_SIZE = _g("Size", "single", ("12 inch", 0), ("16 inch", 400), required=True)
PIZZA_TOPPINGS = _g("Toppings", "multi", ("Mushrooms", 150), ("Pepperoni", 200), ("Olives", 100), ("Basil", 50))
WING_FLAVOR = _g("Flavor", "single", ("Original Hot", 0), ("Lemon Pepper", 0), ("Garlic Parmesan", 0), ("Mango Habanero", 0), required=True)
BOWL_ADDONS = _g("Add-ons", "multi", ("Avocado", 150), ("Extra protein", 300), ("Seaweed salad", 100))
SCOOP_ADDONS = _g("Add-ons", "multi", ("Red bean", 75), ("Mochi bits", 75), ("Sprinkles", 50))
BURGER_ADDONS = _g("Add-ons", "multi", ("Bacon", 200), ("Cheese", 100), ("Avocado", 150))
MOCHI_FLAVOR = _g("Flavor", "single", ("Assorted", 0), ("Matcha", 0), ("Strawberry", 0), ("Black Sesame", 0), required=True)
MCD_FRIES_SIZE = _g("Size", "single", ("Small", 0), ("Medium", 80), ("Large", 140), required=True)
DOG_SIZE = _g("Size", "single", ("Small", 0), ("Medium", 200), ("Large", 400), required=True)


# -- hand-written stores -------------------------------------------------------

_Item = tuple[str, float, str, tuple[OptionGroup, ...], tuple[str, ...]]
_ReviewSpec = tuple[str, int, str]


@dataclass(frozen=True)
class _Spec:
    slug: str
    name: str
    category: str
    cuisine: str
    rating: float
    review_count: int
    delivery: bool
    pickup: bool
    fee: float
    eta: int
    items: tuple[_Item, ...]
    reviews: tuple[_ReviewSpec, ...] = ()


def _i(name: str, price: float, desc: str, *options: OptionGroup, tags: Iterable[str] = ()) -> _Item:
    return (name, price, desc, tuple(options), tuple(tags))


_HAND: tuple[_Spec, ...] = (
    _Spec("stonemill-matcha", "Stonemill Matcha", "Cafe", "Japanese cafe", 4.8, 412, True, True, 1.99, 25, (
        _i("Matcha Croissant", 5.25, "Flaky butter croissant with a matcha cream filling.", tags=["bakery"]),
        _i("Iced Matcha Latte", 6.50, "Stone-ground matcha over ice with your choice of milk.", DRINK_SIZE, MILK, tags=["drink", "matcha"]),
        _i("Ceremonial Matcha Latte", 7.75, "Ceremonial-grade matcha whisked to order, served hot.", MILK, tags=["drink", "matcha"]),
        _i("Mochi Set", 8.50, "Six hand-made mochi.", MOCHI_FLAVOR, tags=["dessert"]),
        _i("Hojicha Latte", 6.25, "Roasted green tea latte.", DRINK_SIZE, MILK, tags=["drink"]),
        _i("Matcha Soft Serve", 5.50, "Soft serve swirled with uji matcha.", SCOOP_ADDONS, tags=["dessert", "matcha"]),
    ), (
        ("Aiko T.", 5, "The iced matcha latte is the best in the city."),
        ("Ben R.", 5, "Matcha croissant sells out by noon, come early."),
        ("Carla M.", 4, "Lovely tea, a little pricey."),
        ("Dev P.", 5, "Ceremonial latte is smooth and not bitter at all."),
    )),
    _Spec("taqueria-el-sol", "Taqueria El Sol", "Mexican", "Mexican", 4.7, 15, True, True, 2.49, 30, (
        _i("Carne Asada Taco", 3.75, "Grilled steak, onion, cilantro on a corn tortilla.", SALSA, TACO_ADDONS, tags=["taco"]),
        _i("Al Pastor Taco", 3.50, "Marinated pork with pineapple.", SALSA, TACO_ADDONS, tags=["taco"]),
        _i("Baja Fish Taco", 4.25, "Beer-battered cod, cabbage slaw, crema.", SALSA, tags=["taco"]),
        _i("Chicken Burrito", 10.99, "Rice, beans, cheese and grilled chicken.", SALSA, TACO_ADDONS),
        _i("Chips & Guacamole", 5.99, "House-made guacamole and warm chips."),
        _i("Horchata", 3.25, "Cinnamon rice drink.", DRINK_SIZE, tags=["drink"]),
    ), (
        ("Luis G.", 5, "Al pastor straight off the trompo."),
        ("Maya K.", 5, "Salsa roja has a real kick."),
        ("Nate F.", 4, "Tacos are small but cheap."),
    )),
    _Spec("ikes", "Ike's Love & Sandwiches", "Sandwiches", "Sandwiches", 4.6, 964, True, True, 2.99, 35, (
        _i("Matt Cain Sub", 13.49, "Halal chicken, BBQ sauce, pepper jack on a long roll.", BREAD, SUB_ADDONS, tags=["sub"]),
        _i("Menage a Trois Sub", 14.99, "Chicken, honey, bbq, three cheeses.", BREAD, SUB_ADDONS, tags=["sub"]),
        _i("Paul Reubens Sub", 12.99, "Pastrami, swiss, sauerkraut, dirty sauce.", BREAD, SUB_ADDONS, tags=["sub"]),
        _i("Jaymee Veggie Sub", 11.49, "Vegan turkey, avocado, pesto.", BREAD, SUB_ADDONS, tags=["sub", "vegetarian"]),
        _i("Side of Fries", 3.49, "Crispy shoestring fries.", tags=["fries"]),
        _i("Kettle Chips", 1.99, "Sea salt chips."),
        _i("Chocolate Chip Cookie", 2.49, "Baked daily."),
    ), (
        ("Omar S.", 5, "Dutch crunch bread makes every sub better."),
        ("Priya N.", 4, "Huge sandwiches, long line."),
        ("Quinn L.", 5, "Matt Cain sub never misses."),
    )),
    _Spec("poke-paradise", "Poke Paradise", "Healthy", "Hawaiian", 4.6, 12, True, True, 2.99, 25, (
        _i("Classic Ahi Bowl", 14.50, "Ahi tuna, rice, cucumber, shoyu.", BOWL_ADDONS, tags=["bowl"]),
        _i("Salmon Poke Bowl", 14.95, "Salmon, spicy mayo, edamame.", BOWL_ADDONS, SPICE, tags=["bowl"]),
        _i("Tofu Poke Bowl", 12.25, "Marinated tofu, greens, seaweed.", BOWL_ADDONS, tags=["bowl", "vegetarian"]),
        _i("Miso Soup", 3.25, "Tofu, wakame, scallion."),
    ), (
        ("Kai H.", 5, "Fresh fish, generous portions."),
        ("Lena W.", 4, "Spicy mayo is the move."),
        ("Milo D.", 4, "Good value for poke."),
    )),
    _Spec("nonnas-pizza", "Nonna's Pizza", "Pizza", "Italian", 4.5, 8, True, True, 3.49, 40, (
        _i("Margherita Pizza", 15.00, "Tomato, mozzarella, basil.", PIZZA_SIZE, PIZZA_TOPPINGS, tags=["pizza"]),
        _i("Pepperoni Pizza", 17.00, "Cup-and-char pepperoni.", PIZZA_SIZE, PIZZA_TOPPINGS, tags=["pizza"]),
        _i("Garlic Knots", 6.00, "Six knots with marinara."),
        _i("Caesar Salad", 9.50, "Romaine, parmesan, croutons."),
    ), (
        ("Gina V.", 5, "Tastes like my grandmother's."),
        ("Hal B.", 4, "Crust is perfect, delivery slow."),
        ("Ivy C.", 5, "Garlic knots are addictive."),
    )),
    _Spec("winstop", "Winstop", "Fast food", "Chicken wings", 4.3, 2210, True, True, 2.99, 30, (
        _i("10 pc Classic Wings", 13.99, "Bone-in wings, one flavor.", WING_FLAVOR, tags=["wings"]),
        _i("8 pc Boneless Wings", 10.49, "Boneless wings, one flavor.", WING_FLAVOR, tags=["wings"]),
        _i("Seasoned Fries", 3.89, "Fries with sweet-and-salty seasoning.", FRIES_SIZE, tags=["fries"]),
        _i("Veggie Sticks", 2.99, "Carrot and celery with ranch."),
        _i("Ranch Dip", 0.99, "House ranch."),
    ), (
        ("Ray J.", 4, "Lemon pepper wings are the classic."),
        ("Sue A.", 4, "Fries seasoning is sweet, love it."),
        ("Tom E.", 3, "Wings arrived lukewarm."),
    )),
    _Spec("man-vs-fries", "Man vs. Fries", "Fast food", "Burgers", 4.1, 87, True, False, 1.99, 30, (
        _i("Classic Fries", 4.29, "Hand-cut skin-on fries.", FRIES_SIZE, tags=["fries"]),
        _i("Loaded Chili Cheese Fries", 8.99, "Beef chili, cheddar, onions.", tags=["fries"]),
        _i("Truffle Parmesan Fries", 7.49, "Truffle oil, parmesan, parsley.", tags=["fries"]),
        _i("Sweet Potato Fries", 5.29, "With chipotle aioli.", tags=["fries"]),
        _i("Double Smash Burger", 11.99, "Two patties, american cheese.", BURGER_ADDONS, tags=["burger"]),
    ), (
        ("Uma O.", 4, "Truffle fries are worth it."),
        ("Vic Z.", 4, "Burger is solid, fries are the star."),
        ("Wes Y.", 3, "Too salty for me."),
    )),
    _Spec("mcdonalds", "McDonald's", "Fast food", "Burgers", 4.0, 5120, True, True, 0.99, 20, (
        _i("Big Mac", 5.99, "Two patties, special sauce, sesame bun.", tags=["burger"]),
        _i("10 pc Chicken McNuggets", 6.49, "With your choice of sauce."),
        _i("World Famous Fries", 3.19, "Golden fries.", MCD_FRIES_SIZE, tags=["fries"]),
        _i("McFlurry with OREO", 4.39, "Soft serve with cookie pieces.", tags=["dessert"]),
        _i("Baked Apple Pie", 1.89, "Lattice crust, warm apples."),
    ), (
        ("Xena Q.", 4, "Fast and consistent."),
        ("Yuri T.", 3, "Ice cream machine worked today!"),
        ("Zoe M.", 4, "Fries were hot for once."),
    )),
    _Spec("popeyes", "Popeyes", "Fast food", "Fried chicken", 4.2, 1875, True, True, 1.49, 25, (
        _i("Classic Chicken Sandwich", 5.49, "Buttermilk-battered chicken, pickles, mayo.", SPICE),
        _i("3 pc Chicken Tenders", 7.99, "Hand-battered tenders.", SPICE),
        _i("Cajun Fries", 2.99, "Fries with cajun seasoning.", FRIES_SIZE, tags=["fries"]),
        _i("Red Beans & Rice", 3.49, "Slow-cooked red beans."),
        _i("Buttermilk Biscuit", 1.49, "Flaky and buttery."),
    ), (
        ("Abe K.", 5, "The chicken sandwich lives up to the hype."),
        ("Bea L.", 4, "Cajun fries are the cheap win."),
        ("Cal N.", 4, "Biscuits are amazing."),
    )),
    _Spec("petco", "Petco", "Pets", "Pet store", 4.4, 640, True, True, 4.99, 45, (
        _i("Premium Dog Food 30 lb", 64.99, "Grain-free salmon recipe."),
        _i("Clumping Cat Litter 20 lb", 18.99, "Unscented, low dust."),
        _i("Chew Toy Bundle", 12.99, "Three durable rubber toys."),
        _i("Deluxe Cat Tree Tower", 189.99, "Six-level cat tree with condos and scratching posts."),
        _i("Orthopedic Pet Bed", 49.99, "Memory foam, washable cover.", DOG_SIZE),
        _i("Pumpkin Dog Costume", 19.99, "Plush pumpkin suit for dogs.", DOG_SIZE, tags=["costume"]),
        _i("Aquarium Starter Kit", 89.99, "10 gallon tank, filter, light."),
    ), (
        ("Dina F.", 5, "Got the pumpkin costume for my corgi, adorable."),
        ("Eli S.", 4, "Delivery of a 30 lb bag in under an hour."),
        ("Fay R.", 4, "Cat tree was easy to assemble."),
        ("Gus W.", 3, "Out of stock on the litter I wanted."),
    )),
    _Spec("party-palace", "Party Palace", "Party", "Party supplies", 4.5, 58, False, True, 0.0, 20, (
        _i("Witch Hat", 9.99, "Black felt with a buckle band.", tags=["costume"]),
        _i("Pirate Costume Kit", 34.99, "Hat, eye patch, sash and hook.", tags=["costume"]),
        _i("Face Paint Kit", 14.49, "Twelve colors, two brushes."),
        _i("Balloon Bouquet", 24.99, "Twelve latex balloons with ribbon."),
        _i("Fog Machine", 59.99, "400 W with remote."),
    ), (
        ("Hana P.", 5, "Found a full pirate outfit in ten minutes."),
        ("Ivan C.", 4, "Face paint kit lasted the whole night."),
        ("Jade O.", 5, "Staff helped me pick a group costume."),
        ("Kurt B.", 4, "Pickup was ready right away."),
    )),
    _Spec("masquerade-cupcakes", "Masquerade Cupcakes", "Dessert", "Bakery", 4.8, 19, True, True, 2.49, 35, (
        _i("Spooky Cupcake Box", 24.00, "Six cupcakes with monster faces."),
        _i("Red Velvet Cupcake", 4.25, "Cream cheese frosting."),
        _i("Pumpkin Spice Cupcake", 4.25, "Seasonal."),
        _i("Masquerade Cookie Tin", 18.50, "Hand-iced mask cookies."),
    ), (
        ("Lia D.", 5, "The monster cupcakes stole the show at our party."),
        ("Marc E.", 5, "Red velvet is moist and rich."),
        ("Nia G.", 4, "Cookie tin was almost too pretty to eat."),
    )),
    _Spec("capitol-subs", "Capitol Subs", "Sandwiches", "Deli", 4.2, 233, True, True, 2.49, 30, (
        _i("Italian Sub", 10.99, "Salami, ham, capicola, provolone.", SUB_SIZE, BREAD, SUB_ADDONS, tags=["sub"]),
        _i("Turkey Club Sub", 9.99, "Turkey, bacon, lettuce, tomato.", SUB_SIZE, BREAD, SUB_ADDONS, tags=["sub"]),
        _i("Meatball Sub", 10.49, "Meatballs, marinara, mozzarella.", SUB_SIZE, tags=["sub"]),
        _i("Veggie Sub", 8.99, "Hummus, cucumber, peppers, sprouts.", SUB_SIZE, BREAD, tags=["sub", "vegetarian"]),
        _i("Potato Salad", 3.49, "Classic deli style."),
    ), (
        ("Otto H.", 4, "Italian sub is loaded with meat."),
        ("Pam I.", 4, "Quick pickup at lunch."),
        ("Rob J.", 3, "Bread was a bit dry."),
    )),
)


# -- generated stores ------------------------------------------------------------

# name, slug, category, cuisine, delivery (None: drawn), template
_GENERATED: tuple[tuple[str, str, str, str, bool | None, str], ...] = (
    ("Green Leaf Salads", "green-leaf-salads", "Healthy", "Salads", False, "salad"),
    ("Juice Junction", "juice-junction", "Healthy", "Juice bar", True, "juice"),
    ("Fresh Roots Bowls", "fresh-roots-bowls", "Healthy", "Grain bowls", False, "salad"),
    ("Pho Real", "pho-real", "Asian", "Vietnamese", True, "pho"),
    ("Sushi Zen", "sushi-zen", "Asian", "Japanese", True, "sushi"),
    ("Olive & Fig", "olive-and-fig", "Healthy", "Mediterranean", False, "mediterranean"),
    ("Acai Wave", "acai-wave", "Healthy", "Acai bowls", True, "juice"),
    ("Veggie Haven", "veggie-haven", "Healthy", "Vegetarian", False, "salad"),
    ("Slice Republic", "slice-republic", "Pizza", "Pizza", None, "pizza"),
    ("Brick Oven Co.", "brick-oven-co", "Pizza", "Pizza", None, "pizza"),
    ("Casa Verde Cantina", "casa-verde-cantina", "Mexican", "Mexican", None, "mexican"),
    ("Dumpling Dynasty", "dumpling-dynasty", "Asian", "Chinese", None, "dumpling"),
    ("Bangkok Basil", "bangkok-basil", "Asian", "Thai", None, "thai"),
    ("Seoul Bowl", "seoul-bowl", "Asian", "Korean", None, "korean"),
    ("Scoops Ice Cream", "scoops-ice-cream", "Dessert", "Ice cream", None, "icecream"),
    ("Donut Dept.", "donut-dept", "Dessert", "Donuts", None, "donut"),
    ("Burger Barn", "burger-barn", "Fast food", "Burgers", None, "burger"),
    ("Morning Grind Coffee", "morning-grind-coffee", "Cafe", "Coffee", None, "coffee"),
    ("Curry House", "curry-house", "Indian", "Indian", None, "curry"),
    ("Smokehouse BBQ", "smokehouse-bbq", "BBQ", "Barbecue", None, "bbq"),
    ("Sunny Side Diner", "sunny-side-diner", "Breakfast", "Diner", None, "diner"),
)

# template -> (item name, low $, high $, description, options, tags)
_TEMPLATES: dict[str, tuple[tuple[str, int, int, str, tuple[OptionGroup, ...], tuple[str, ...]], ...]] = {
    "salad": (
        ("Harvest Bowl", 11, 15, "Kale, sweet potato, apple, goat cheese.", (BOWL_ADDONS,), ("bowl",)),
        ("Chicken Caesar Salad", 11, 14, "Romaine, parmesan, grilled chicken.", (BOWL_ADDONS,), ()),
        ("Quinoa Power Bowl", 12, 15, "Quinoa, chickpeas, tahini.", (BOWL_ADDONS,), ("bowl", "vegetarian")),
        ("Lemonade", 3, 5, "Fresh squeezed.", (DRINK_SIZE,), ("drink",)),
    ),
    "juice": (
        ("Green Machine Juice", 7, 9, "Kale, apple, ginger.", (DRINK_SIZE,), ("drink",)),
        ("Berry Acai Bowl", 10, 13, "Acai, berries, granola.", (SCOOP_ADDONS,), ("bowl",)),
        ("Matcha Protein Smoothie", 8, 10, "Matcha, banana, oat milk.", (DRINK_SIZE,), ("drink", "matcha")),
        ("Ginger Shot", 3, 4, "Two ounces of heat.", (), ("drink",)),
    ),
    "pho": (
        ("Beef Pho", 13, 16, "Rare steak, brisket, rice noodles.", (DRINK_SIZE,), ()),
        ("Chicken Pho", 12, 15, "Poached chicken, herbs.", (), ()),
        ("Fresh Spring Rolls", 6, 8, "Shrimp, vermicelli, peanut sauce.", (), ()),
        ("Vietnamese Iced Coffee", 4, 6, "Condensed milk.", (), ("drink",)),
    ),
    "sushi": (
        ("Salmon Nigiri", 6, 8, "Two pieces.", (), ()),
        ("California Roll", 7, 9, "Crab, avocado, cucumber.", (), ()),
        ("Spicy Tuna Roll", 8, 10, "Tuna, spicy mayo.", (SPICE,), ()),
        ("Edamame", 4, 6, "Sea salt.", (), ("vegetarian",)),
    ),
    "mediterranean": (
        ("Falafel Plate", 12, 15, "Falafel, hummus, salad, pita.", (BOWL_ADDONS,), ("vegetarian",)),
        ("Chicken Shawarma Bowl", 13, 16, "Rice, pickles, garlic sauce.", (BOWL_ADDONS,), ("bowl",)),
        ("Hummus & Pita", 6, 8, "Olive oil, paprika.", (), ("vegetarian",)),
        ("Baklava", 4, 6, "Walnut and honey.", (), ("dessert",)),
    ),
    "pizza": (
        ("Cheese Pizza", 14, 17, "Tomato and mozzarella.", (PIZZA_SIZE, PIZZA_TOPPINGS), ("pizza",)),
        ("Veggie Supreme Pizza", 17, 20, "Peppers, onions, olives, mushrooms.", (PIZZA_SIZE,), ("pizza", "vegetarian")),
        ("Buffalo Wings", 11, 14, "Eight wings.", (SPICE,), ("wings",)),
        ("Garden Salad", 7, 9, "Mixed greens.", (), ()),
    ),
    "mexican": (
        ("Chicken Tinga Taco", 3, 5, "Chipotle chicken, crema.", (SALSA, TACO_ADDONS), ("taco",)),
        ("Veggie Taco", 3, 4, "Grilled peppers, black beans.", (SALSA,), ("taco", "vegetarian")),
        ("Steak Quesadilla", 11, 14, "Flour tortilla, jack cheese.", (SALSA,), ()),
        ("Elote", 4, 6, "Street corn, cotija.", (), ()),
    ),
    "dumpling": (
        ("Pork Soup Dumplings", 11, 14, "Eight xiao long bao.", (), ()),
        ("Veggie Potstickers", 8, 10, "Pan fried, six pieces.", (), ("vegetarian",)),
        ("Scallion Pancake", 6, 8, "Crispy and flaky.", (), ()),
        ("Dan Dan Noodles", 11, 13, "Sesame, chili, pork.", (SPICE,), ()),
    ),
    "thai": (
        ("Pad Thai", 13, 16, "Rice noodles, tamarind, peanuts.", (SPICE,), ()),
        ("Green Curry", 14, 17, "Coconut, thai basil, bamboo.", (SPICE,), ()),
        ("Thai Iced Tea", 4, 6, "Sweet and creamy.", (), ("drink",)),
        ("Mango Sticky Rice", 7, 9, "Seasonal mango.", (), ("dessert",)),
    ),
    "korean": (
        ("Bibimbap", 13, 16, "Rice, vegetables, egg, gochujang.", (SPICE,), ("bowl",)),
        ("Korean Fried Chicken", 15, 19, "Double fried, soy garlic.", (SPICE,), ()),
        ("Kimchi Pancake", 9, 11, "Crispy kimchi jeon.", (), ()),
        ("Barley Tea", 2, 3, "Iced.", (), ("drink",)),
    ),
    "icecream": (
        ("Two Scoop Cup", 6, 8, "Pick any two flavors.", (SCOOP_ADDONS,), ("dessert",)),
        ("Waffle Cone", 6, 8, "Fresh waffle cone.", (SCOOP_ADDONS,), ("dessert",)),
        ("Pint to Go", 10, 13, "Hand-packed pint.", (), ("dessert",)),
        ("Affogato", 6, 7, "Espresso over vanilla.", (), ("dessert",)),
    ),
    "donut": (
        ("Glazed Donut", 2, 3, "Classic yeast donut.", (), ("dessert",)),
        ("Boston Cream Donut", 3, 4, "Custard filled.", (), ("dessert",)),
        ("Dozen Assorted", 18, 22, "Baker's choice.", (), ("dessert",)),
        ("Drip Coffee", 2, 4, "House blend.", (DRINK_SIZE,), ("drink",)),
    ),
    "burger": (
        ("Barn Burger", 10, 13, "Quarter pound, cheddar, pickles.", (BURGER_ADDONS,), ("burger",)),
        ("Mushroom Swiss Burger", 11, 14, "Sauteed mushrooms.", (BURGER_ADDONS,), ("burger",)),
        ("Onion Rings", 4, 6, "Beer battered.", (), ()),
        ("Chocolate Shake", 5, 7, "Thick and cold.", (DRINK_SIZE,), ("drink",)),
    ),
    "coffee": (
        ("Oat Milk Latte", 5, 6, "Double shot.", (DRINK_SIZE, MILK), ("drink",)),
        ("Matcha Latte", 5, 7, "Culinary-grade matcha.", (DRINK_SIZE, MILK), ("drink", "matcha")),
        ("Blueberry Muffin", 3, 4, "Baked this morning.", (), ("bakery",)),
        ("Avocado Toast", 9, 11, "Sourdough, chili flakes.", (), ()),
    ),
    "curry": (
        ("Chicken Tikka Masala", 15, 18, "Tomato cream sauce.", (SPICE,), ()),
        ("Palak Paneer", 13, 16, "Spinach, cottage cheese.", (SPICE,), ("vegetarian",)),
        ("Garlic Naan", 3, 5, "From the tandoor.", (), ()),
        ("Mango Lassi", 4, 6, "Yogurt, mango.", (), ("drink",)),
    ),
    "bbq": (
        ("Brisket Plate", 19, 24, "Half pound, two sides.", (), ()),
        ("Pulled Pork Sandwich", 12, 14, "Slaw, pickles.", (), ()),
        ("Mac & Cheese", 5, 7, "Baked, three cheeses.", (), ()),
        ("Cornbread", 3, 4, "Honey butter.", (), ()),
    ),
    "diner": (
        ("Pancake Stack", 10, 12, "Three buttermilk pancakes.", (), ()),
        ("Denver Omelette", 12, 14, "Ham, peppers, onions.", (), ()),
        ("Hash Browns", 4, 5, "Crispy.", (), ()),
        ("Bottomless Coffee", 3, 4, "Refills on us.", (), ("drink",)),
    ),
}

_AUTHORS = (
    "Alex", "Bailey", "Casey", "Drew", "Emery", "Finley", "Gray", "Harper", "Indy", "Jordan",
    "Kendall", "Logan", "Morgan", "Noel", "Parker", "Reese", "Sage", "Taylor", "Avery", "Quinn",
)
_PRAISE = (
    "Arrived hot and on time.", "Portions are generous.", "Solid go-to for weeknights.",
    "Everything tasted fresh.", "Packaging kept it all intact.", "Would order again.",
    "Better than dining in.", "A little slow but worth the wait.", "Great value for the price.",
    "The staff got my custom order right.", "Flavors were spot on.", "Nice surprise, new favorite.",
)
_GRIPES = (
    "Missing a sauce this time.", "Delivery took longer than promised.", "A bit too salty.",
    "Smaller than the photos.", "Fine, nothing special.",
)


def _price(rng: random.Random, low: int, high: int) -> int:
    return rng.randint(low, high - 1) * 100 + rng.choice((25, 49, 75, 99))


def _build_menu(slug: str, items: Iterable[_Item]) -> tuple[MenuItem, ...]:
    return tuple(
        MenuItem(f"{slug}-{n}", name, round(price * 100), desc, opts, frozenset(tags))
        for n, (name, price, desc, opts, tags) in enumerate(items, start=1)
    )


def _generated(rng: random.Random) -> list[_Spec]:
    specs = []
    for name, slug, category, cuisine, delivery, template in _GENERATED:
        rating = round(rng.uniform(3.6, 4.6), 1)
        reviews_n = rng.choice((rng.randint(5, 19), rng.randint(20, 400), rng.randint(400, 3000)))
        deliv = delivery if delivery is not None else rng.random() < 0.75
        fee = 0.0 if not deliv else rng.choice((0.99, 1.49, 1.99, 2.49, 2.99, 3.99))
        eta = rng.randint(15, 50)
        items: list[_Item] = []
        for iname, low, high, desc, opts, tags in _TEMPLATES[template]:
            items.append((iname, _price(rng, low, high) / 100, desc, opts, tags))
        reviews: list[_ReviewSpec] = []
        for k in range(rng.randint(3, 6)):
            author = f"{rng.choice(_AUTHORS)} {chr(ord('A') + rng.randrange(26))}."
            stars = rng.choice((5, 5, 4, 4, 4, 3, 2))
            text = rng.choice(_PRAISE if stars >= 4 else _GRIPES)
            reviews.append((author, stars, f"{text} ({name}, visit {k + 1})"))
        specs.append(_Spec(slug, name, category, cuisine, rating, reviews_n, deliv, True, fee, eta,
                           tuple(items), tuple(reviews)))
    return specs


# -- sections ----------------------------------------------------------------

SECTIONS: dict[str, tuple[str, ...]] = {
    "Best near you": (
        "stonemill-matcha", "taqueria-el-sol", "ikes", "poke-paradise", "nonnas-pizza",
        "mcdonalds", "capitol-subs", "dumpling-dynasty",
    ),
    "Light & fresh": (
        "stonemill-matcha", "poke-paradise", "green-leaf-salads", "juice-junction", "fresh-roots-bowls",
        "pho-real", "sushi-zen", "olive-and-fig", "acai-wave", "veggie-haven",
    ),
    "Costume party ready": ("party-palace", "masquerade-cupcakes", "petco"),
    "Fast food favorites": ("mcdonalds", "popeyes", "winstop", "man-vs-fries", "burger-barn"),
    "Sweet treats": ("masquerade-cupcakes", "scoops-ice-cream", "donut-dept", "stonemill-matcha"),
}
"""Home-page sections in page order; the first three cards of the first one are the
first three restaurants on the home page."""

CATEGORIES: tuple[str, ...] = (
    "Pizza", "Mexican", "Sandwiches", "Fast food", "Dessert", "Pets", "Asian", "Healthy",
    "Cafe", "Party", "Indian", "BBQ", "Breakfast",
)


def _build() -> tuple[Restaurant, ...]:
    rng = random.Random(DATA_SEED)
    specs = list(_HAND) + _generated(rng)
    out = []
    for s in specs:
        sections = tuple(name for name, slugs in SECTIONS.items() if s.slug in slugs)
        out.append(Restaurant(
            slug=s.slug, name=s.name, category=s.category, cuisine=s.cuisine, rating=s.rating,
            review_count=s.review_count, delivery=s.delivery, pickup=s.pickup,
            delivery_fee=round(s.fee * 100), eta_min=s.eta, menu=_build_menu(s.slug, s.items),
            reviews=tuple(Review(a, r, t) for a, r, t in s.reviews), sections=sections,
        ))
    return tuple(out)


RESTAURANTS: tuple[Restaurant, ...] = _build()
"""Every store, in the order of the home page's "All stores" list."""
BY_SLUG: dict[str, Restaurant] = {r.slug: r for r in RESTAURANTS}


def category_by_slug(slug: str) -> str | None:
    for name in CATEGORIES:
        if category_slug(name) == slug:
            return name
    return None


def find_store(name: str) -> Restaurant | None:
    """The store whose name best matches ``name`` (exact, then prefix, then substring)."""
    want = normalize(name)
    if not want:
        return None
    if want in BY_SLUG:
        return BY_SLUG[want]
    for test in (lambda n: n == want, lambda n: n.startswith(want), lambda n: want in n):
        for r in RESTAURANTS:
            if test(normalize(r.name)):
                return r
    return None


def stores_in_category(name: str) -> list[Restaurant]:
    return [r for r in RESTAURANTS if r.category.lower() == name.lower()]


def search_stores(query: str) -> list[Restaurant]:
    """Stores whose name, cuisine, category or an item name contains ``query``.

    Name matches come first, then the rest, each in "All stores" order.
    """
    q = query.strip().lower()
    if not q:
        return []
    by_name = [r for r in RESTAURANTS if q in r.name.lower()]
    rest = [
        r for r in RESTAURANTS
        if r not in by_name and (
            q in r.cuisine.lower() or q in r.category.lower() or any(q in it.name.lower() for it in r.menu)
        )
    ]
    return by_name + rest


def sections_of(slug: str) -> tuple[str, ...]:
    return BY_SLUG[slug].sections
