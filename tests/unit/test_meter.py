"""The visible privacy budget: dplab.accountant's observer hook, its Spanish refusal, and the
cell runner's budget messages (the meter under a cell), under CPython."""

from __future__ import annotations

import pytest
from cellrunner import meter
from dplab import BudgetAccountant, BudgetError, accountant, laplace_mech


@pytest.fixture
def runner(runner):
    """A fresh session whose namespace holds what the cells here use."""
    runner.namespace.update(
        {"BudgetAccountant": BudgetAccountant, "BudgetError": BudgetError, "laplace_mech": laplace_mech}
    )
    return runner


def run(runner, code):
    events = []
    result = runner.run(code, "prueba", lambda kind, payload: events.append((kind, payload)))
    budgets = [p for k, p in events if k == "budget"]
    return result, budgets, events


# --- the hook --------------------------------------------------------------------------------


def test_observer_hears_creation_spending_and_refusal():
    heard = []
    observer = lambda acc, event, detail: heard.append((acc, event, detail))  # noqa: E731
    accountant.add_observer(observer)
    try:
        acc = BudgetAccountant(1.0)
        release = acc.spend(0.6, label="a")
        with pytest.raises(BudgetError):
            acc.spend(0.6, label="b")
    finally:
        accountant.remove_observer(observer)
    assert [(a is acc, e) for a, e, _ in heard] == [(True, "created"), (True, "spent"), (True, "refused")]
    assert heard[1][2] == release and "rechazada" in heard[2][2]
    BudgetAccountant(1.0).spend(0.1)
    assert len(heard) == 3  # removed: hears nothing more
    accountant.remove_observer(observer)  # twice: nothing happens


def test_observer_sees_the_state_after_the_change_and_cannot_break_the_accounting():
    seen = []

    def observer(acc, event, detail):
        seen.append(acc.total_spent)  # the lock is free: reading the state does not deadlock
        raise RuntimeError("un observador roto")

    accountant.add_observer(observer)
    try:
        acc = BudgetAccountant(1.0)
        acc.spend(0.25)
        with pytest.raises(BudgetError):
            acc.spend(1.0)
    finally:
        accountant.remove_observer(observer)
    assert seen == [(0.0, 0.0), (0.25, 0.0), (0.25, 0.0)]
    assert acc.total_spent == (0.25, 0.0) and len(acc.history) == 1


def test_without_observers_nothing_is_called():
    assert accountant._OBSERVERS == []
    with pytest.raises(TypeError):
        accountant.add_observer("no es una función")


def test_refusal_is_plain_spanish_and_names_what_is_short():
    acc = BudgetAccountant(1.0)
    acc.spend(0.5, label="primera")
    acc.spend(0.5, label="segunda")
    with pytest.raises(BudgetError) as info:
        laplace_mech(10.0, 1, 0.5, accountant=acc, label="tercera")
    message = str(info.value)
    assert message == (
        "La publicación «tercera» fue rechazada: cuesta ε = 0,5 y solo quedan 0 de "
        "1. No se gastó nada del presupuesto."
    )
    assert acc.total_spent == (1.0, 0.0)


def test_refusal_of_delta():
    acc = BudgetAccountant(1.0, 1e-5)
    acc.spend(0.5, 5e-6)
    with pytest.raises(BudgetError) as info:
        acc.spend(0.1, 1e-5)
    assert "cuesta δ = 10⁻⁵ y solo quedan 5·10⁻⁶ de 10⁻⁵" in str(info.value)
    assert "ε =" not in str(info.value)  # epsilon fits: only delta is named
    with pytest.raises(BudgetError) as info:
        acc.spend(0.7, 1e-5)
    assert "ε = 0,7" in str(info.value) and "δ = 10⁻⁵" in str(info.value)
    with pytest.raises(BudgetError) as info:
        BudgetAccountant(1.0).spend(0.1, 1e-9)
    assert "no admite δ" in str(info.value)


@pytest.mark.parametrize(
    "x, text",
    [
        (1.0, "1"),
        (1.5, "1,5"),
        (0.5, "0,5"),
        (0.0, "0"),
        (0.9996, "0,999"),
        (0.46875, "0,468"),
        (1e-5, "10⁻⁵"),
        (5e-6, "5·10⁻⁶"),
        (1.25e-7, "1,25·10⁻⁷"),
        (2500.0, "2.500"),
    ],
)
def test_show_budget_spanish_and_rounded_down(x, text):
    assert accountant.show_budget(x) == text


# --- the cell runner's budget messages ---------------------------------------------------------


def test_cell_without_an_accountant_sends_no_budget(runner):
    result, budgets, _ = run(runner, "x = 1 + 1\nprint(x)")
    assert result["ok"] and budgets == []
    assert accountant._OBSERVERS == []


def test_sequential_composition_meter(runner):
    code = (
        "presupuesto = BudgetAccountant(epsilon=1.5)\n"
        "r = [laplace_mech(10.0, 1, 0.5, accountant=presupuesto) for _ in range(2)]\n"
    )
    result, budgets, _ = run(runner, code)
    assert result["ok"] and budgets
    last = budgets[-1]
    assert last["more"] == 0
    [entry] = last["accountants"]
    assert entry["name"] == "presupuesto"
    assert (entry["epsilon_spent"], entry["epsilon_total"]) == (1.0, 1.5)
    assert entry["epsilon_text"] == "1 de 1,5" and entry["delta_text"] is None
    assert entry["releases"] == 2 and entry["refused"] is None
    assert budgets[0]["accountants"][0]["epsilon_spent"] == 0.0  # the first change at once
    assert accountant._OBSERVERS == []  # unregistered after the run


def test_delta_is_reported_where_it_applies(runner):
    result, budgets, _ = run(runner, "acc = BudgetAccountant(1.0, 1e-5)\nacc.spend(0.5, 5e-6)\n")
    entry = budgets[-1]["accountants"][0]
    assert entry["delta_text"] == "5·10⁻⁶ de 10⁻⁵"
    assert (entry["delta_spent"], entry["delta_total"]) == (5e-6, 1e-5)


def test_refusal_reaches_the_meter_even_when_caught(runner):
    code = (
        "presupuesto = BudgetAccountant(1.0)\n"
        "presupuesto.spend(1.0, label='todo')\n"
        "try:\n"
        "    presupuesto.spend(0.5, label='otra')\n"
        "except BudgetError:\n"
        "    print('rechazada')\n"
    )
    result, budgets, _ = run(runner, code)
    assert result["ok"]
    entry = budgets[-1]["accountants"][0]
    assert entry["refused"].startswith("La publicación «otra» fue rechazada")
    assert entry["epsilon_text"] == "1 de 1"


def test_uncaught_refusal_fails_the_cell_with_the_same_reason(runner):
    result, budgets, _ = run(runner, "p = BudgetAccountant(1.0)\np.spend(2.0)\n")
    assert not result["ok"] and result["error"]["type"] == "BudgetError"
    assert result["error"]["message"] == budgets[-1]["accountants"][0]["refused"]


def test_ten_thousand_spends_are_throttled(runner, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(meter.time, "monotonic", lambda: clock[0])
    code = "acc = BudgetAccountant(10_000.0)\nfor i in range(10_000):\n    acc.spend(1.0)\n    tick()\n"
    runner.namespace["tick"] = lambda: clock.__setitem__(0, clock[0] + 0.001)  # 1 ms a spend
    result, budgets, _ = run(runner, code)
    assert result["ok"]
    # 10 s of spending at one update per BUDGET_SECONDS (0,1 s): ~100, not 10 000
    assert 50 <= len(budgets) <= 10 / meter.BUDGET_SECONDS + 2, len(budgets)
    spent = [b["accountants"][0]["epsilon_spent"] for b in budgets]
    assert spent == sorted(spent) and spent[-1] == 10_000.0  # the last state always arrives


def test_a_fast_loop_sends_few_messages_on_the_real_clock(runner):
    result, budgets, _ = run(
        runner, "acc = BudgetAccountant(1e6)\nfor i in range(10_000):\n    acc.spend(1.0)\n"
    )
    assert result["ok"] and budgets[-1]["accountants"][0]["epsilon_spent"] == 10_000.0
    assert len(budgets) < 1000  # a throttle, however slow the machine (no timing assumed)


def test_fresh_per_run_and_earlier_accountants_count_when_used(runner):
    run(runner, "viejo = BudgetAccountant(2.0)\nviejo.spend(0.5)\n")
    result, budgets, _ = run(runner, "print('nada')\n")
    assert budgets == []  # a new run starts with no meter
    result, budgets, _ = run(runner, "viejo.spend(0.5)\n")
    [entry] = budgets[-1]["accountants"]  # used in this run: shown, with its whole history
    assert entry["name"] == "viejo" and entry["epsilon_text"] == "1 de 2"
    assert entry["refused"] is None


def test_many_accountants_are_capped(runner):
    result, budgets, _ = run(runner, "for i in range(50):\n    BudgetAccountant(1.0).spend(0.1)\n")
    last = budgets[-1]
    assert len(last["accountants"]) == meter.MAX_METERS
    assert last["more"] > 0


def test_prelude_style_namespace_without_dplab_observers(runner, monkeypatch):
    # a dplab without the hook (an older wheel): the runner runs cells, no meter
    monkeypatch.delattr(accountant, "add_observer")
    result, budgets, _ = run(runner, "a = BudgetAccountant(1.0)\na.spend(0.5)\n")
    assert result["ok"] and budgets == []


def test_refusal_numbers_are_short_unless_that_hides_the_difference():
    acc = BudgetAccountant(1.0)
    acc.spend(3 / 7)
    with pytest.raises(BudgetError) as info:
        acc.spend(0.75, label="suma")
    assert "cuesta ε = 0,75 y solo quedan 0,571 de 1." in str(info.value)
    with pytest.raises(BudgetError) as info:
        acc.spend(0.5715)  # 0,571 either way at 3 decimals: 6 show why it does not fit
    assert "cuesta ε = 0,5715 y solo quedan 0,571428 de 1." in str(info.value)


def test_an_accountant_local_to_a_function_of_the_cell_is_named(runner):
    code = (
        "def comprobar():\n"
        "    prueba = BudgetAccountant(1.0)\n"
        "    prueba.spend(0.25)\n"
        "comprobar()\n"
        "BudgetAccountant(2.0).spend(1.0)\n"
    )
    result, budgets, _ = run(runner, code)
    first, second = budgets[-1]["accountants"]
    assert first["name"] == "prueba" and first["epsilon_text"] == "0,25 de 1"
    assert second["name"] is None and second["epsilon_text"] == "1 de 2"
