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


def test_the_centre_is_small_and_low_level_names_live_in_their_modules():
    centre = {"run", "compile", "check", "Session", "Runtime", "RunResult", "Planner", "CompiledPlan", "CheckResult",
              "ToolCache", "Model", "PlanLimits"}
    assert centre <= set(agentjit.__all__)
    assert not {"FunctionModel", "TestModel", "call_tool", "run_plan", "BrowserPool", "Strategy"} & set(agentjit.__all__)
    errors = {n for n in agentjit.__all__ if isinstance(getattr(agentjit, n), type) and issubclass(getattr(agentjit, n), Exception)}
    assert set(agentjit.__all__) == centre | errors | {"__version__"}
    assert all(issubclass(getattr(agentjit, n), agentjit.AgentJITError) for n in errors)
    from agentjit.runtime import Strategy
    from agentjit.scheduler import StrategyName

    assert isinstance(Strategy, type) and StrategyName.__args__ == ("serial", "parallel", "hedge")  # one name, one thing


async def test_compile_check_and_run_from_the_package(browser_pool, food_site):
    from agentjit.llm import OpenAIModel
    from agentjit.testing import FakeOpenAIServer, FakeReply

    plan = "await goto_home()\nstores = await list_stores(section='Best near you')\nresult = [s.name for s in stores.items[:3]]"
    assert agentjit.check(plan, app="food").valid
    assert not agentjit.check("import os\nresult = 1", app="food").valid
    with FakeOpenAIServer([FakeReply(text=f"```python\n{plan}\n```", usage=(100, 10))] * 4) as server:
        model = OpenAIModel("fake", base_url=server.base_url, api_key="k")
        try:
            compiled = await agentjit.compile("first three stores in Best near you", app="food", model=model, n=1, k=1)
        finally:
            await model.aclose()
    assert compiled.origin == "model" and "list_stores" in compiled.source
    from agentjit.bench.food import CACHE_DIR

    result = await agentjit.run(compiled.source, site_url=food_site.url, cache=CACHE_DIR, pool=browser_pool)
    assert len(result.value) == 3 and [c.tool for c in result.calls] == ["goto_home", "list_stores"]
