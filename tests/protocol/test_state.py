"""The abstract-state algebra: table-driven cases and hypothesis properties."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentjit.protocol.state import ANY, UNKNOWN, OneOf, apply, join, satisfies, unmet

SAT = [
    # state, pre, bindings, expected
    ({"page": "home"}, {"page": "home"}, {}, True),
    ({"page": "home"}, {"page": "store"}, {}, False),
    ({"page": "home"}, {"page": "*"}, {}, True),
    ({}, {"page": "*"}, {}, False),
    ({}, {"modal": ""}, {}, True),
    ({"modal": "x"}, {"modal": ""}, {}, False),
    ({}, {"modal": None}, {}, True),
    ({"page": "cart"}, {"page": "home|cart"}, {}, True),
    ({"page": "store"}, {"page": "home|cart"}, {}, False),
    ({"store": "ikes"}, {"store": "$slug"}, {"slug": "ikes"}, True),
    ({"store": "ikes"}, {"store": "$slug"}, {"slug": "petco"}, False),
    ({"store": "ikes"}, {"store": "$slug"}, {}, True),  # unbound: only non-null is required
    ({}, {"store": "$slug"}, {}, False),
    ({"n": 3}, {"n": 3}, {}, True),
    ({"n": True}, {"n": 1}, {}, False),  # bools are not ints
    ({"page": ANY}, {"page": "*"}, {}, True),
    ({"page": ANY}, {"page": "home"}, {}, False),
    ({"page": UNKNOWN}, {"page": "*"}, {}, False),
    ({"page": OneOf(frozenset({"home", "cart"}))}, {"page": "home|cart|store"}, {}, True),
    ({"page": OneOf(frozenset({"home", "cart"}))}, {"page": "home"}, {}, False),
    ({"page": OneOf(frozenset({"home", None}))}, {"page": "*"}, {}, False),
    ({"page": "home", "x": 1}, {}, {}, True),
]


@pytest.mark.parametrize(("state", "pre", "bindings", "expected"), SAT)
def test_satisfies_table(state, pre, bindings, expected):
    assert satisfies(state, pre, bindings) is expected


APPLY = [
    ({"page": "home"}, {"page": "store", "store": "$slug"}, {"slug": "ikes"}, {"page": "store", "store": "ikes"}),
    ({"page": "store", "store": "ikes"}, {"store": ""}, {}, {"page": "store"}),
    ({"page": "home"}, {"page": "*"}, {}, {"page": "home"}),
    ({}, {"page": "*"}, {}, {"page": ANY}),
    ({"page": "home"}, {"page": "home|cart"}, {}, {"page": "home"}),
    ({"page": "store"}, {"page": "home|cart"}, {}, {"page": OneOf(frozenset({"home", "cart"}))}),
    ({"page": "home"}, {"store": "$slug"}, {}, {"page": "home", "store": ANY}),
    ({"a": 1}, {}, {}, {"a": 1}),
]


@pytest.mark.parametrize(("state", "post", "bindings", "expected"), APPLY)
def test_apply_table(state, post, bindings, expected):
    before = dict(state)
    assert apply(state, post, bindings) == expected
    assert state == before  # apply does not mutate


def test_unmet_names_the_keys():
    assert unmet({"page": "home"}, {"page": "store", "modal": ""}) == ["page"]


def test_join_keeps_what_every_path_guarantees():
    assert join([{"page": "store", "store": "a"}, {"page": "store", "store": "b"}]) == {
        "page": "store",
        "store": OneOf(frozenset({"a", "b"})),
    }
    assert join([{"page": "home"}, {}])["page"] == OneOf(frozenset({"home", None}))
    assert not satisfies(join([{"page": "home"}, {}]), {"page": "*"})
    assert join([{"page": ANY}, {}])["page"] is UNKNOWN
    assert join([{"page": ANY}, {"page": "home"}]) == {"page": ANY}
    assert join([]) == {}


literals = st.one_of(st.sampled_from(["home", "store", "cart", "checkout"]), st.integers(0, 3))
states = st.dictionaries(st.sampled_from(["page", "store", "modal"]), literals, max_size=3)
patterns = st.dictionaries(
    st.sampled_from(["page", "store", "modal"]),
    st.one_of(literals, st.just("*"), st.just(""), st.just("home|cart")),
    max_size=3,
)


@given(states, patterns)
def test_apply_then_post_holds(state, post):
    """After apply(post), the state satisfies post itself."""
    assert satisfies(apply(state, post), post)


@given(states, patterns, patterns)
def test_composition(state, post, other):
    """A sequence composes: apply is deterministic and later posts win on shared keys."""
    after = apply(apply(state, post), other)
    for key, pat in other.items():
        assert satisfies(after, {key: pat})


@given(st.lists(states, min_size=1, max_size=4), patterns)
def test_join_is_sound(branches, pre):
    """If the join satisfies pre, every branch does (the join never over-promises)."""
    if satisfies(join(branches), pre):
        assert all(satisfies(b, pre) for b in branches)


@given(states)
def test_join_of_one_is_identity(state):
    assert join([state]) == state
