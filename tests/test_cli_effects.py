"""``agentjit run --effects URL --run-id ID``: a write reaches the site once per run id, judged from the cart."""

from __future__ import annotations

import json
from pathlib import Path

from agentjit.cli import main

PLAN = ('await goto_store(name="Stonemill Matcha")\n'
        'added = await add_to_cart(item_name="Mochi Set", quantity=1)\nresult = added.item_added\n')  # fmt: skip


def mochi(site) -> int:
    return sum(line["quantity"] for line in site.state()["cart"] if line["item_name"] == "Mochi Set")


def test_run_sends_a_write_once_per_run_id(food_site, tmp_path: Path, capsys) -> None:
    plan = tmp_path / "add.py"
    plan.write_text(PLAN)
    url = f"sqlite:///{tmp_path}/effects.db"

    def run(run_id: str) -> dict:
        code = main(["run", str(plan), "--site", food_site.url, "--effects", url, "--run-id", run_id,
                     "--strategy", "serial", "--json"])  # fmt: skip
        out = capsys.readouterr().out
        assert code == 0, out
        return json.loads(out)

    first = run("night-1")
    assert first["value"] == "Mochi Set" and mochi(food_site) == 1
    again = run("night-1")  # the same run again (a resumed night): replayed, not sent
    assert again["value"] == "Mochi Set" and mochi(food_site) == 1  # (run ids apart: test_effect_stores.py)
