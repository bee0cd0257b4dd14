"""The deck on the three engines students use: Chromium, Firefox and WebKit, each served
cross-origin isolated (COOP/COEP) and plain (a static host, ``?nosw``: no Service Worker).

Every combination runs the same in-page scenario (engines/scenario.js) from a cold load: the
page loads and Python starts; every cell runs (the deck's own background pre-run); a cell is
edited and run; the editor completes «census.» from the live session (jedi, loaded on focus);
a slider rewrites its one line and re-runs its cell; an exercise judges its
starter ✗ and, its solution loaded with «Cargar en el editor», ✓; the privacy-budget meter of
«Composición secuencial» reads "ε: 1 de 1" and an overspending edit shows the accountant's
refusal, in Spanish and in red; the ⤓ menu opens and its notebook link is a blob: URL of valid
nbformat-4 JSON holding the cells as edited; Stop ends a runaway cell (an interrupt where the page
can share memory with the worker, else a restart of Python); restarting Python after all cells
ran replays every cell (where Stop restarted Python, that is the restart checked: one replay of
the deck per combination, not two); and the deck still works. Then recovery (issue 19): where
memory is shared, Stop ends a sleeping cell (``time.sleep(30)``) in under 0,5 s with no restart;
a cell that allocates until memory runs out leaves a working deck (figures too); and after a
worker closes itself (``js.close()``) the run asked for next waits for the watchdog's restart and
gives its result. Drivers: engines/drivers.py.

    pytest -m engines             # prints each combination's time to all cells done

A missing browser or driver skips its engine, except under CI (``CI=true``), where it fails:
``scripts/setup.sh --test`` installs them all.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.engines import drivers
from tests.support.paths import ROOT

RESULTS = ROOT / "test-results" / "engines"
DRIVER_TIMEOUT = 1500.0  # a backstop: the scenario's own per-step deadlines end it well before
STEPS = [
    "load",
    "all-cells",
    "edit-run",
    "completion",
    "slider",
    "exercise",
    "meter",
    "notebook",
    "stop",
    "restart",
    "after-restart",
    "sleep-stop",
    "memory",
    "silent-worker",
]
REPLAY_HINT = (
    "\n  (Python sat idle with cells queued: the worker's scheduler lost them. Before 97e2369 "
    '"A scheduler that cannot deadlock", every restart after all cells ran ended like this.)'
)
SPIN_HINT = (
    "\n  (WebKitGTK 2.50: worker.terminate() cannot stop a thread that spins in wasm without ever "
    "calling into JS; Pyodide calls into JS now and then only when it has an interrupt buffer)"
)

pytestmark = pytest.mark.engines


def _drive(engine: str, url: str, request) -> dict:
    options = {"driverTimeout": DRIVER_TIMEOUT}
    if engine == "chromium":
        return drivers.run_chromium(request.getfixturevalue("browser"), url, options)
    if engine == "firefox":
        return drivers.run_firefox(url, options, DRIVER_TIMEOUT)
    return drivers.run_webkit(url, options, DRIVER_TIMEOUT)


@pytest.mark.parametrize("mode", ["isolated", "plain"])
@pytest.mark.parametrize("engine", ["chromium", "firefox", "webkit"])
def test_deck_on_engine(engine, mode, request, deck_url, deck_url_plain):
    drivers.require(engine)
    isolated = mode == "isolated"
    url = deck_url if isolated else deck_url_plain + "?nosw"  # ?nosw: really not isolated
    result = _drive(engine, url, request)
    driver, report = result["driver"], result.get("report") or {}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{engine}-{mode}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))

    done = report.get("allCellsDoneSeconds")
    # on the terminal after the run, from any pytest worker (tests/conftest.py): the closing note quotes these
    request.node.user_properties.append(
        (
            "summary",
            f"{engine} {mode}: all cells done {done if done is not None else '—'} s after navigation "
            f"(cold; {driver.get('browser', '?')}); "
            + ", ".join(
                f"{s['name']} {'ok' if s['ok'] else 'FAILED'} {s['seconds']} s"
                + (f" (Python restarted {s['details']['restarts']}×)" if s["details"].get("restarts") else "")
                for s in report.get("steps", [])
            )
            + f"; at rest {(driver.get('idle') or {}).get('cores', '?')} cores",
        )
    )

    assert not driver.get("leftovers"), f"{engine} left processes behind (now ended): {driver['leftovers']}"
    assert "fatal" not in driver and report, (
        f"the {engine} driver failed: {driver.get('fatal')}\n{driver.get('stderr', '')}"
    )
    assert not report.get("fatal"), f"the scenario threw in {engine}: {report['fatal']}"

    failures = []
    steps = {s["name"]: s for s in report["steps"]}
    assert list(steps) == STEPS, f"the scenario ran {list(steps)}"
    for name, s in steps.items():
        if not s["ok"]:
            hint = REPLAY_HINT if name == "restart" and "stalled" in s.get("error", "") else ""
            failures.append(f"{name}: {s.get('error')}{hint}")

    # the engine is what the mode says; Stop interrupts exactly where memory can be shared
    facts = report["engine"]
    if facts:
        if facts["crossOriginIsolated"] is not isolated:
            failures.append(f"crossOriginIsolated is {facts['crossOriginIsolated']}, served {mode}")
        shares = facts["crossOriginIsolated"] and facts["sharedArrayBuffer"] == "function"
        if facts["canInterrupt"] is not shares:
            failures.append(
                f"runtime.canInterrupt is {facts['canInterrupt']} with crossOriginIsolated "
                f"{facts['crossOriginIsolated']} and SharedArrayBuffer {facts['sharedArrayBuffer']}"
            )
        if isolated and engine != "webkit" and not shares:  # WebKitGTK has no SharedArrayBuffer
            failures.append(f"{engine} isolated has no SharedArrayBuffer")
        stop = steps["stop"]["details"]
        if steps["stop"]["ok"]:
            expected = "interrupt" if facts["canInterrupt"] else "restart"
            needle = "KeyboardInterrupt" if expected == "interrupt" else "se reinició Python"
            if stop.get("mode") != expected or needle not in stop.get("error", ""):
                failures.append(
                    f"Stop should {expected} ({needle!r} in the cell's error), "
                    f"it did {stop.get('mode')}: {stop.get('error')!r}"
                )
        if facts["canInterrupt"] and steps["sleep-stop"]["details"].get("skipped"):
            failures.append("Stop of a sleeping cell was not checked, though this engine can interrupt")
    # at rest (the scenario waited for every cell idle and every worker ready with nothing asked
    # of it), nothing computes: a worker thread still busy is a cell that Stop (or a restart)
    # was to end, spinning on in a worker that worker.terminate() did not stop
    if report.get("unsettled"):
        failures.append(
            f"the page never came to rest: {report['unsettled']} (workers: {report.get('atRest')})"
        )
    idle = driver.get("idle") or {}
    # busy in the first sample, and in the second where the driver took one (drivers.rest_use)
    spinning = drivers.busy_workers(idle) and drivers.busy_workers(idle.get("again", idle))
    if spinning:
        failures.append(
            f"at rest, a Web Worker thread still computes: {spinning} (of {idle['cores']} cores "
            f"in all): the terminated worker of a stopped cell keeps running{SPIN_HINT}"
        )
    if engine != "webkit" and driver.get("pageErrors"):  # (WebDriver classic cannot see them)
        failures.append(f"uncaught errors in the page: {driver['pageErrors']}")
    assert not failures, f"{engine} {mode}:\n  " + "\n  ".join(failures)


def test_a_worker_is_spinning_only_if_busy_in_both_samples_at_rest():
    """drivers.rest_use samples again where a worker thread is busy: one that spins on (a stopped
    cell that worker.terminate() did not end) is busy in both; one finishing its last work (a
    stopped worker's memory freed) is busy in the first only, and is no failure."""
    samples = iter([{"threads": [["WebCore: Worker", 0.32]]}, {"threads": [["WebCore: Worker", 0.02]]}])
    finishing = drivers.rest_use(lambda: next(samples))
    assert not drivers.busy_workers(finishing["again"])
    spinning = drivers.rest_use(lambda: {"threads": [["WebCore: Worker", 0.95], ["t Helper Thread", 0.9]]})
    assert drivers.busy_workers(spinning) and drivers.busy_workers(spinning["again"])
    helper_only = drivers.rest_use(lambda: {"threads": [["t Helper Thread", 0.9]]})
    assert "again" not in helper_only  # not a worker thread: no second sample
