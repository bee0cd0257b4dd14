"""WebKit driver of the engine tests: WebKitGTK's MiniBrowser over W3C WebDriver with selenium.

``run_webkit`` opens the deck in a fresh MiniBrowser (``--automation``: an ephemeral session, a
cold load), runs an in-page scenario (a file of ``drivers.source``'s: scenario.js or hallfollow.js
with inpage.js's helpers) with ``execute_async_script`` and returns {driver, report}. MiniBrowser needs a display and its ``--headless`` hung here, so the tests
run this module under ``xvfb-run`` as a script, which prints that result as one line of JSON:

    xvfb-run -a -s "-screen 0 1280x800x24" python tests/browser/engines/webkit.py URL OPTIONS_JSON SOURCE_JS

SIGTERM ends the session (the driver quits MiniBrowser) before exiting.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from drivers import cpu_use, rest_use  # noqa: E402  (run as a script: its own folder is its package)

WEBKIT_DRIVER = os.environ.get("DPDECK_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get("DPDECK_MINIBROWSER", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")

# execute_async_script wraps this in a function; its last argument is the callback. The report
# goes back as JSON text: WebKitWebDriver's own serializer failed once on a whole report ("Could
# not parse script result", the run lost), and JSON.stringify writes any value as valid JSON
ASYNC_WRAPPER = """const done = arguments[arguments.length - 1];
const send = (r) => done(JSON.stringify(r));
({scenario})(arguments[0]).then(send, (e) => send({{fatal: String(e && e.stack || e)}}));"""


def run_webkit(url: str, options: dict, scenario_path: Path) -> dict:
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    options = dict(options)
    scenario = scenario_path.read_text(encoding="utf-8")
    opts = Options()
    opts.binary_location = MINIBROWSER
    opts.add_argument("--automation")
    t0 = time.monotonic()
    driver = webdriver.WebKitGTK(options=opts, service=Service(executable_path=WEBKIT_DRIVER))
    try:
        info = {
            "browser": f"{driver.capabilities.get('browserName')}/"
            f"{driver.capabilities.get('browserVersion')}",
            "launchSeconds": round(time.monotonic() - t0, 3),
        }
        # ``window``: [width, height] of the window (a phone's 390 px shows reveal.js's scroll view)
        driver.set_window_size(*options.get("window", (1280, 800)))
        # the scenario's own deadlines end it; this is only the backstop
        driver.set_script_timeout(options.get("driverTimeout", 900))
        driver.set_page_load_timeout(60)
        t1 = time.monotonic()
        driver.get(url)
        info["gotoSeconds"] = round(time.monotonic() - t1, 3)
        report = json.loads(driver.execute_async_script(ASYNC_WRAPPER.format(scenario=scenario), options))
        if options.get("screenshot"):  # the page as the scenario left it, for a person to look at
            driver.save_screenshot(options["screenshot"])
        info["idle"] = rest_use(lambda: cpu_use(_group()))  # the page at rest: nothing should still compute
        info["totalSeconds"] = round(time.monotonic() - t0, 3)
        return {"driver": info, "report": report}
    finally:
        driver.quit()


def _group() -> set[int]:
    """The processes of this script's process group (xvfb-run's session: Xvfb, WebKitWebDriver,
    MiniBrowser and WebKit's processes), but this one."""
    group, found = os.getpgid(0), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if os.getpgid(int(entry)) == group:
                    found.add(int(entry))
            except OSError:
                pass
    return found


def main(argv: list[str]) -> int:
    # a SIGTERM from the test (its timeout) unwinds through run_webkit's finally: no MiniBrowser left
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    url = argv[1]
    options, scenario = json.loads(argv[2]), Path(argv[3])  # from drivers.run_webkit: its source
    try:
        result = run_webkit(url, options, scenario)
    except Exception as exc:  # reported to the test, which fails with it
        print(json.dumps({"driver": {"fatal": f"{type(exc).__name__}: {exc}"}}), flush=True)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
