// prefetch.js: the order in which the worker downloads the wheels, and how it hands them to
// Pyodide's fetches.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { closure, dropKept, fetchKept, hasIntegrity, prefetch, waves } from "../../static/js/worker/prefetch.js";

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

/** The Subresource Integrity of ``text``, as Pyodide asks a lock wheel. */
const sri = (text) => "sha256-" + createHash("sha256").update(text).digest("base64");

test("hasIntegrity compares a body's SHA-256 with the integrity asked", async () => {
  const body = new TextEncoder().encode("numpy's bytes").buffer;
  assert.equal(await hasIntegrity(body, sri("numpy's bytes")), true);
  assert.equal(await hasIntegrity(body, sri("other bytes")), false);
  assert.equal(await hasIntegrity(body, "sha512-whatever"), false);
});

/** prefetch() against a fake network: the lock, then each wheel's bytes (or a 404). */
async function prefetched(files) {
  const lock = { packages: { numpy: { file_name: "numpy.whl" }, matplotlib: { file_name: "mpl.whl", depends: ["numpy"] } } };
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url) => {
    if (String(url).endsWith("pyodide-lock.json")) return new Response(JSON.stringify(lock));
    const name = String(url).split("/").pop();
    return name in files ? new Response(files[name]) : new Response("", { status: 404 });
  };
  try {
    await prefetch(/** @type {any} */ ({ pyodideIndex: "v/", packages: ["numpy"], deferredPackages: ["matplotlib"],
      wheel: "w/dplab.whl", runner: "w/runner.whl" }), "https://host/");
  } finally {
    globalThis.fetch = realFetch;
  }
}

test("Pyodide's fetch of a prefetched wheel gets the kept bytes, once, if they match; the rest go to the network", async () => {
  await prefetched({ "numpy.whl": "N", "mpl.whl": "M", "dplab.whl": "D" });
  const network = [];
  const fallback = async (input) => { network.push(input.url ?? String(input)); return new Response("from the network"); };
  const kept = fetchKept(/** @type {any} */ (fallback));
  const numpy = "https://host/v/numpy.whl";
  assert.equal(await (await kept(numpy, { integrity: sri("N") })).text(), "N");
  assert.equal(await (await kept(numpy, { integrity: sri("N") })).text(), "from the network");
  assert.equal(await (await kept(new Request("https://host/w/dplab.whl", { integrity: sri("D") }))).text(), "D");
  assert.equal(await (await kept(new Request("https://host/v/mpl.whl", { integrity: sri("not M") }))).text(),
               "from the network");
  assert.equal(await (await kept("https://host/w/runner.whl")).text(), "from the network");   // its download failed
  assert.equal(await (await kept("https://host/elsewhere.js")).text(), "from the network");
  assert.deepEqual(network, [numpy, "https://host/v/mpl.whl", "https://host/w/runner.whl", "https://host/elsewhere.js"]);
  dropKept();
});

test("dropKept forgets what Pyodide did not ask for, and what is downloaded after is not kept", async () => {
  await prefetched({ "numpy.whl": "N", "mpl.whl": "M" });
  dropKept();
  const kept = fetchKept(/** @type {any} */ (async () => new Response("from the network")));
  assert.equal(await (await kept("https://host/v/mpl.whl")).text(), "from the network");
  await prefetched({ "numpy.whl": "N" });
  assert.equal(await (await kept("https://host/v/numpy.whl")).text(), "from the network");
});
