"""The public surface: __all__ is explicit, complete and importable; py.typed ships."""

from pathlib import Path

import agentjit


def test_all_names_exist():
    for name in agentjit.__all__:
        assert hasattr(agentjit, name), name


def test_no_public_name_missing_from_all():
    public = {n for n in vars(agentjit) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(agentjit, n)).__name__ == "module"}
    assert public - modules <= set(agentjit.__all__), sorted(public - modules - set(agentjit.__all__))


def test_py_typed_ships():
    assert (Path(agentjit.__file__).parent / "py.typed").exists()
