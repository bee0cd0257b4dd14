"""The three engines' drivers, seen from the tests: each opens the deck cold, runs the same
in-page scenario (scenario.js, or another such file: hallfollow.js) and returns {driver, report}.

- Chromium: Playwright (the browser tests' own fixtures), a fresh context per run.
- Firefox: ``node firefox.mjs`` (puppeteer-core over WebDriver BiDi, headless firefox-esr).
- WebKit: ``xvfb-run … python webkit.py`` (selenium over W3C WebDriver,
  WebKitGTK's MiniBrowser on a virtual display).

Firefox and WebKit run as child processes in a session of their own, so that whatever they
start (the browser, its content processes, WebKitWebDriver, Xvfb) can be found and ended: after
each run, every process left in those process groups is terminated, and reported.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SCENARIO = HERE / "scenario.js"
INPAGE = HERE / "inpage.js"
if str(ROOT) not in sys.path:  # webkit.py runs this as a script, from its own folder
    sys.path.insert(0, str(ROOT))

from bench import procstat  # noqa: E402  (one /proc reader, shared with the benchmark)

XVFB_ARGS = ["-a", "-s", "-screen 0 1280x800x24"]  # MiniBrowser's --headless hung here

FIREFOX = os.environ.get("DPDECK_FIREFOX", "/usr/bin/firefox-esr")
# The oldest Firefox the pinned puppeteer-core (package.json) drives: 25.16 calls WebDriver BiDi's
# emulation.setScreenOrientationOverride, which ESR 140.12 does not know (3 tests failed there);
# 153.8 passes. scripts/setup.sh --test reads this line, and upgrades firefox-esr below it.
FIREFOX_MIN = 153
WEBKIT_DRIVER = os.environ.get("DPDECK_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get("DPDECK_MINIBROWSER", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")


def source(scenario: Path) -> str:
    """The in-page scenario as one function of the options, handed inpage.js's helpers."""
    body, helpers = scenario.read_text(encoding="utf-8"), INPAGE.read_text(encoding="utf-8")
    return f"(options) => ({body.strip()})(options, {helpers.strip()})"


@contextlib.contextmanager
def _source_file(scenario: Path):
    """``source(scenario)`` in a file of its own, for the drivers that run as child processes."""
    with tempfile.TemporaryDirectory(prefix="dpdeck-scenario-") as folder:
        path = Path(folder) / scenario.name
        path.write_text(source(scenario), encoding="utf-8")
        yield path


def require(engine: str) -> None:
    """Skip the calling test when ``engine`` cannot be driven here; under CI (``CI=true``), fail."""
    import pytest

    lacks = missing(engine)
    if not lacks:
        return
    message = f"cannot drive {engine}: missing {'; '.join(lacks)}. scripts/setup.sh --test installs them."
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(message)
    pytest.skip(message)


def firefox_major(binary: str) -> int | None:
    """The major version ``binary --version`` prints ("Mozilla Firefox 153.8.0esr" → 153), or None."""
    try:
        said = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = [w for w in said.split() if w[:1].isdigit()]
    head = words[0].split(".")[0] if words else ""
    return int(head) if head.isdigit() else None


def missing(engine: str) -> list[str]:
    """What this machine lacks to drive ``engine`` (empty when it can)."""
    lacks = []
    if engine == "chromium":
        from dpdeck.serve.browser import chromium_path

        if not chromium_path():
            lacks.append("chromium (apt-get install chromium, or set DPDECK_CHROMIUM)")
    elif engine == "firefox":
        if not shutil.which("node"):
            lacks.append("node (Node.js ≥ 18)")
        if not (ROOT / "node_modules" / "puppeteer-core").is_dir():
            lacks.append("node_modules/puppeteer-core (npm ci)")
        if not os.access(FIREFOX, os.X_OK):
            lacks.append(f"{FIREFOX} (apt-get install firefox-esr, or set DPDECK_FIREFOX)")
        elif (major := firefox_major(FIREFOX)) is None or major < FIREFOX_MIN:
            lacks.append(
                f"Firefox ≥ {FIREFOX_MIN} for the pinned puppeteer-core: {FIREFOX} is "
                f"{major or 'of an unknown version'} (bash scripts/setup.sh --test upgrades firefox-esr; "
                "or set DPDECK_FIREFOX to a newer Firefox)"
            )
    elif engine == "webkit":
        if not os.access(WEBKIT_DRIVER, os.X_OK):
            lacks.append(f"{WEBKIT_DRIVER} (apt-get install webkit2gtk-driver)")
        if not os.access(MINIBROWSER, os.X_OK):
            lacks.append(f"{MINIBROWSER} (apt-get install webkit2gtk-driver)")
        if not shutil.which("xvfb-run"):
            lacks.append("xvfb-run (apt-get install xvfb xauth)")
        try:
            import selenium  # noqa: F401
        except ImportError:
            lacks.append("selenium (pip install -e '.[test]')")
    return lacks


# ---- Chromium --------------------------------------------------------------------------------


def run_chromium(
    browser,
    url: str,
    options: dict,
    scenario: Path = SCENARIO,
    context_options: dict | None = None,
    after=None,
) -> dict:
    """Playwright: a fresh context (empty cache and storage: a cold load) on the shared browser;
    ``context_options`` (Playwright's: viewport, touch, scale) where not the laptop's viewport;
    ``after(page)``, if given, once the scenario is over (e.g. a screenshot)."""
    from dpdeck.serve.browser import VIEWPORT

    context = browser.new_context(**(context_options or {"viewport": VIEWPORT}))
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        t0 = time.monotonic()
        page.goto(url, wait_until="load", timeout=60_000)
        driver = {"browser": f"chromium/{browser.version}", "gotoSeconds": round(time.monotonic() - t0, 3)}
        # evaluate is not subject to the page's CSP; the source is a function: it is called with options
        report = page.evaluate(source(scenario), options)
        if after:
            after(page)
        driver["idle"] = rest_use(idle_tree)  # the page at rest, all done: nothing should still compute
        driver["pageErrors"] = errors
        driver["totalSeconds"] = round(time.monotonic() - t0, 3)
        return {"driver": driver, "report": report}
    finally:
        context.close()


# ---- Firefox and WebKit: child processes -------------------------------------------------------


def run_firefox(url: str, options: dict, timeout: float, scenario: Path = SCENARIO) -> dict:
    from dpdeck.serve.browser import VIEWPORT

    with _source_file(scenario) as path:
        cmd = [
            "node",
            str(HERE / "firefox.mjs"),
            url,
            str(path),
            json.dumps({**options, "viewport": VIEWPORT}),
        ]
        return _run_driver(cmd, timeout)


def run_webkit(url: str, options: dict, timeout: float, scenario: Path = SCENARIO) -> dict:
    cmd = [
        "xvfb-run",
        *XVFB_ARGS,
        sys.executable,
        str(HERE / "webkit.py"),
        url,
        json.dumps(options),
    ]
    # Xvfb has no GPU: WebKit's accelerated compositing then runs on llvmpipe (software GL),
    # where reveal.js's bouncing "next slide" arrow alone kept 1.4 of this machine's 2 cores
    # busy, and every cell ran ~1.5x slower. A student's machine composites on its GPU;
    # without compositing WebKit paints that arrow for 0.2 cores. (Set it to 0 to compare.)
    env = {
        **os.environ,
        "WEBKIT_DISABLE_COMPOSITING_MODE": os.environ.get("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
    }
    if env["WEBKIT_DISABLE_COMPOSITING_MODE"] == "0":
        del env["WEBKIT_DISABLE_COMPOSITING_MODE"]  # WebKit looks only at whether it is set
    with _source_file(scenario) as path:
        return _run_driver([*cmd, str(path)], timeout, env)


def _run_driver(cmd: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run a driver script in a new session; its last stdout line is the JSON result. Whatever
    it leaves running (in its own group, or the browser's: puppeteer starts Firefox detached,
    announced as ``browser-pid N`` on stderr) is ended, and listed in ``leftovers``."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True, env=env
        )
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _signal_group(proc.pid, signal.SIGTERM)  # the drivers close their browser on SIGTERM
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
        finally:
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
            groups = {proc.pid} | {
                int(line.split()[1])
                for line in stderr.splitlines()
                if line.startswith("browser-pid ") and line.split()[1:]
            }
            leftovers = _end_groups(groups)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"driver": {}}
    driver = result.setdefault("driver", {})
    driver["leftovers"] = leftovers
    driver["exitCode"] = proc.returncode
    if timed_out:
        driver["fatal"] = f"the driver did not finish in {timeout:.0f} s and was killed"
    if not lines or "fatal" in driver:
        driver["stderr"] = stderr[-3000:]
    return result


def _members(pgid: int) -> list[tuple[int, str]]:
    """Live processes (not zombies) of the process group ``pgid``: (pid, name)."""
    return procstat.group_members(pgid)


# ---- Is the browser idle once the scenario is over? --------------------------------------------
# A Web Worker's thread, by engine: a thread of these names still busy after the scenario is a
# computation that Stop or a restart should have ended (worker.terminate() did not stop it).
WORKER_THREADS = ("WebCore: Worker", "DOM Worker", "DedicatedWorker")


def cpu_use(pids: set[int], seconds: float = 3.0) -> dict:
    """How busy ``pids`` are over ``seconds``: {cores, threads: [[name, cores], …] busiest first}."""
    before = procstat.thread_times(pids)
    time.sleep(seconds)
    after = procstat.thread_times(pids)
    used = {
        tid: (name, (t - before.get(tid, (name, t))[1]) / seconds)
        for tid, (name, t) in after.items()
        if tid in before
    }
    threads = sorted(((name, round(c, 2)) for name, c in used.values() if c >= 0.05), key=lambda x: -x[1])
    return {
        "seconds": seconds,
        "cores": round(sum(c for _, c in used.values()), 2),
        "threads": [list(t) for t in threads[:8]],
    }


def busy_workers(use: dict) -> list[list]:
    """The Web Worker threads that ``use`` (``cpu_use``'s) shows computing: 0.3 cores or more."""
    return [t for t in use.get("threads", []) if t[0].startswith(WORKER_THREADS) and t[1] >= 0.3]


def rest_use(sample) -> dict:
    """What computes at rest: ``sample()``, and where a worker thread is busy in it, a second
    sample right after, as ``again``. A worker that spins on (one terminate() did not stop) is
    busy in both; one finishing its last work (a stopped worker's memory freed) is not."""
    use = sample()
    if busy_workers(use):
        use["again"] = sample()
    return use


def idle_tree() -> dict:
    """CPU use of everything this process started (its browser), over a few seconds."""
    return cpu_use(procstat.descendants(os.getpid()) - {os.getpid()})


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _end_groups(groups: set[int], grace: float = 10.0) -> list[str]:
    """Give what is left in ``groups`` ``grace`` seconds to exit on its own (a browser's helper
    processes close a moment after it), then end it. Returns what had to be ended."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_members(g) for g in groups):
        time.sleep(0.2)
    left = [f"{name} ({pid})" for g in groups for pid, name in _members(g)]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not any(_members(g) for g in groups):
            break
        for g in groups:
            _signal_group(g, sig)
        stop = time.monotonic() + 3
        while time.monotonic() < stop and any(_members(g) for g in groups):
            time.sleep(0.1)
    return left
