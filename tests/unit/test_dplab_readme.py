"""pyodide_pkg/README.md documents every public name of dplab."""

import re
from pathlib import Path

import dplab

README = (Path(__file__).resolve().parents[2] / "pyodide_pkg" / "README.md").read_text(encoding="utf-8")


def test_every_public_name_is_in_the_readme():
    missing = [name for name in dplab.__all__ if not re.search(rf"\b{name}\b", README)]
    assert not missing, f"document these in pyodide_pkg/README.md: {missing}"


def test_the_bridge_table_has_a_row_for_the_mechanisms_and_the_accountant():
    bridge = README.split("## Bridge", 1)[1].split("\n## ", 1)[0]
    for name in (
        "laplace_mech",
        "gaussian_mech",
        "exponential_mech",
        "rdp_to_epsilon",
        "dpsgd_epsilon",
        "BudgetAccountant",
        "check_spend",
        "remaining_budget",
        "total_spent",
    ):
        assert f"`{name}" in bridge or f"`.{name}" in bridge, name
