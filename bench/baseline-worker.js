// The baseline: bare Pyodide in a module worker (like the deck's static/js/worker/worker.js), no deck.
//   loadPyodide -> loadPackage(numpy) -> loadPackage(matplotlib) -> one small figure as SVG.
// Every step posts a mark {name, t} to the page; t is epoch ms (timeOrigin + now), which the
// page converts to its own clock (ms since navigation).
//
// mode "time"   (every repetition): the sequence above, then a few cheap diagnostics that run
//               *after* the first figure (so they never change the timed figures).
// mode "detail" (one extra visit): the same sequence with the imports split module by module,
//               plus the deck's own steps (dplab wheel, `import dplab`, the prelude), to show
//               where the time goes.

const now = () => performance.timeOrigin + performance.now();
const post = (msg) => self.postMessage(msg);
const mark = (name) => post({ type: "mark", name, t: now() });
const quiet = { messageCallback: () => {}, errorCallback: () => {} };

// one small figure, as the deck's cellrunner does it (Agg figure saved as SVG text)
const FIGURE = `
import io
import numpy as np
import matplotlib.pyplot as plt
_rng = np.random.default_rng(0)
_fig, _ax = plt.subplots(figsize=(4, 3))
_ax.hist(_rng.normal(size=1000), bins=30)
_ax.set_title("baseline")
_buf = io.StringIO()
_fig.savefig(_buf, format="svg", bbox_inches="tight")
plt.close(_fig)
_buf.getvalue()
`;

// the imports behind `import matplotlib.pyplot`, in dependency order (detail mode)
const MPL_STEPS = ["six", "dateutil", "pyparsing", "packaging", "cycler", "kiwisolver",
                   "PIL.Image", "contourpy", "matplotlib", "matplotlib.colors",
                   "matplotlib.font_manager", "matplotlib.pyplot"];

// detail mode: count the time Python spends compiling source to bytecode during imports (the
// wheels and python_stdlib.zip ship .py files only, and the in-memory file system forgets any
// __pycache__ between visits, so every visit compiles every module it imports)
const COMPILE_TIMER = `
import sys, time, zipimport
import importlib._bootstrap_external as _be
sys._bench_compile = {"s": 0.0, "n": 0}
def _bench_wrap(fn):
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            sys._bench_compile["s"] += time.perf_counter() - t
            sys._bench_compile["n"] += 1
    return timed
_be.SourceLoader.source_to_code = _bench_wrap(_be.SourceLoader.source_to_code)
zipimport._compile_source = _bench_wrap(zipimport._compile_source)
# and each module's own import time (without the modules it imports): the smallest pieces a
# background import could be cut into, yielding to waiting cells between them
import _frozen_importlib as _bs
sys._bench_imports = {}
_bench_stack = []
_bench_orig_load = _bs._load_unlocked
def _bench_load(spec):
    t = time.perf_counter()
    _bench_stack.append(0.0)
    try:
        return _bench_orig_load(spec)
    finally:
        dt = time.perf_counter() - t
        child = _bench_stack.pop()
        sys._bench_imports[spec.name] = (dt - child) * 1000
        if _bench_stack:
            _bench_stack[-1] += dt
_bs._load_unlocked = _bench_load
`;

function compiled(py) {
  return py.runPython("sys._bench_compile['s'] * 1000, sys._bench_compile['n']").toJs();
}

function timed(py, name, code) {
  const [c0, n0] = compiled(py);
  const t0 = performance.now();
  const value = py.runPython(code);
  const ms = performance.now() - t0;
  const [c1, n1] = compiled(py);
  post({ type: "step", name, ms, compileMs: c1 - c0, compiled: n1 - n0 });
  return value;
}

async function run({ config, base, mode }) {
  mark("worker-start");
  const { loadPyodide } = await import(new URL(config.pyodideIndex + "pyodide.mjs", base).href);
  mark("mjs-imported");
  const py = await loadPyodide({
    indexURL: new URL(config.pyodideIndex, base).href,
    env: { MPLBACKEND: "agg", HOME: "/home/pyodide" },
    stdout: () => {}, stderr: () => {},
  });
  mark("core-ready");

  if (mode === "detail") py.runPython(COMPILE_TIMER);
  if (mode === "detail" && config.wheel) {
    // the deck's boot order: numpy and the dplab wheel together, then its prelude
    await py.loadPackage(["numpy"], quiet);
    mark("numpy-ready");
    await py.loadPackage([new URL(config.wheel, base).href], quiet);
    mark("dplab-wheel-ready");
    timed(py, "import numpy (deck boot)", "import numpy");
    timed(py, "import dplab", "import dplab");
    if (config.prelude) {
      const ns = py.globals.get("dict")();
      py.globals.set("_bench_ns", ns);
      timed(py, "prelude (numpy, dplab imported)", "exec(compile(_bench_prelude, '<prelude>', 'exec'), _bench_ns)"
        .replace("_bench_prelude", JSON.stringify(config.prelude)));
      ns.destroy();
    }
    mark("prelude-done");
  } else {
    await py.loadPackage(["numpy"], quiet);
    mark("numpy-ready");
  }

  await py.loadPackage(["matplotlib"], quiet);
  mark("matplotlib-ready");

  let svg;
  if (mode === "detail") {
    for (const mod of MPL_STEPS) timed(py, `import ${mod}`, `import ${mod}`);
    // what the deck's prepare_matplotlib adds: its style module
    timed(py, "dplab.plots + apply_style (deck only)",
          "try:\n from dplab import plots; plots.apply_style()\nexcept ImportError:\n pass");
    svg = timed(py, "first figure (hist → SVG)", FIGURE);
  } else {
    svg = py.runPython(FIGURE);
  }
  mark("figure-drawn");
  post({ type: "figure", svgLength: svg.length, t: now() });

  // ---- diagnostics, after the timed sequence ----
  const diag = {};
  let t0 = performance.now();
  py.runPython(FIGURE);
  diag.secondFigureMs = performance.now() - t0;
  diag.modules = JSON.parse(py.runPython(
    "import sys, json; json.dumps(sorted({m.split('.')[0] for m in sys.modules}))"));
  diag.loadedPackages = Object.keys(py.loadedPackages);
  if (mode === "detail") {
    diag.moduleImports = JSON.parse(py.runPython(
      "import json; json.dumps(sorted(((v, k) for k, v in sys._bench_imports.items()), reverse=True))"));
    // the font cache: matplotlib builds ~/.cache/matplotlib/fontlist-*.json on its first
    // import; the in-memory file system forgets it, so every visit builds it again
    diag.fontCache = JSON.parse(py.runPython(`
import json, os, time
import matplotlib, matplotlib.font_manager as fm
d = matplotlib.get_cachedir()
files = {f: os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)}
t = time.perf_counter(); fm._load_fontmanager(try_read_cache=False); rebuild = time.perf_counter() - t
t = time.perf_counter(); fm._load_fontmanager(try_read_cache=True); read = time.perf_counter() - t
json.dumps({"dir": d, "files": files, "rebuild_ms": rebuild * 1000, "read_cached_ms": read * 1000})
`));
  }
  post({ type: "done", diag });
}

self.onmessage = (event) => {
  run(event.data).catch((e) => post({ type: "error", message: String(e?.stack || e) }));
};
