// prefetch.js: the order in which the worker warms the HTTP cache (pure parts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { closure, waves } from "../../static/js/prefetch.js";

const lock = {
  packages: {
    numpy: { file_name: "numpy.whl", depends: [] },
    matplotlib: { file_name: "mpl.whl", depends: ["numpy", "pillow", "python-dateutil"] },
    pillow: { file_name: "pillow.whl", depends: [] },
    "python-dateutil": { file_name: "dateutil.whl", depends: ["six"] },
    six: { file_name: "six.whl", depends: [] },
  },
};

test("closure lists dependencies first, each once, and skips unknown names", () => {
  assert.deepEqual(closure(lock, ["matplotlib", "numpy", "nope"]),
                   ["numpy.whl", "pillow.whl", "six.whl", "dateutil.whl", "mpl.whl"]);
});

test("first what the first cell needs, then matplotlib's wheels without numpy again", () => {
  const config = /** @type {any} */ ({ pyodideIndex: "vendor/pyodide-0.27.7/", packages: ["numpy"],
    deferredPackages: ["matplotlib"], wheel: "static-x/wheels/dplab.whl", runner: "static-x/py/cellrunner.py" });
  const [first, second] = waves(config, "https://host/deck/", lock);
  assert.deepEqual(first, ["https://host/deck/vendor/pyodide-0.27.7/numpy.whl",
                           "https://host/deck/static-x/wheels/dplab.whl",
                           "https://host/deck/static-x/py/cellrunner.py"]);
  assert.deepEqual(second.map((u) => u.split("/").pop()),
                   ["pillow.whl", "six.whl", "dateutil.whl", "mpl.whl"]);
});
