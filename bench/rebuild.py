"""``serve --watch``'s rebuild, this tree against git commit REF, in one run.

    python bench/rebuild.py                      # against main, 5 repetitions of 6 builds
    python bench/rebuild.py --before ac5e66a --reps 3

Each tree's build code (``dpdeck/``, ``templates/``, ``static/``, ``pyodide_pkg/``,
``build.py``) is snapshotted; a fresh process of each builds a scaffolded lecture (``dpdeck
new``) into one ``dist`` several times, as ``serve --watch`` does after each save: the first
build is the process's cold one, the others are the rebuilds an author waits for. The trees
alternate, so a machine that gets busier part-way disturbs both alike. Prints the median and
minimum of the first build and of the rebuilds per tree, and their ratio. Writes nothing that
outlives the run (the wheel cache it shares with every build is content-keyed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import prepare

TREE = ("dpdeck", "templates", "static", "pyodide_pkg", "build.py")

# run inside each snapshot: build the lecture ``builds`` times in one process, print the seconds
CHILD = """
import json, sys, time
from pathlib import Path
from dpdeck.build.scaffold import new_deck
from dpdeck.build.site import Project, build
root, lecture, builds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
if not lecture.exists():
    new_deck(lecture, "Clase de prueba")
seconds = []
for _ in range(builds):
    t = time.perf_counter()
    build(Project(root), deck_file=lecture / "deck.yaml", dist=lecture.parent / "dist")
    seconds.append(time.perf_counter() - t)
print(json.dumps(seconds))
"""


def run(snap: Path, lecture: Path, builds: int) -> list[float]:
    env = dict(os.environ, DPDECK_NO_COMPRESS="1", PYTHONPATH=str(snap), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(snap), str(lecture), str(builds)],
        cwd=snap,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="main", help="git commit to compare with (default main)")
    parser.add_argument("--reps", type=int, default=5, help="processes of each tree (default 5)")
    parser.add_argument("--builds", type=int, default=6, help="builds per process (default 6)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dpdeck-rebuild-") as tmp:
        work = Path(tmp)
        trees = {
            "before": prepare.snapshot_ref(work, args.before, TREE, "before"),
            "after": prepare.snapshot_ref(work, None, TREE, "after"),
        }
        first: dict[str, list[float]] = {"before": [], "after": []}
        again: dict[str, list[float]] = {"before": [], "after": []}
        for rep in range(args.reps):
            for name, snap in trees.items():
                print(f"repetition {rep + 1}/{args.reps}: {name}…", file=sys.stderr, flush=True)
                seconds = run(snap, work / f"lecture-{name}" / "clase", args.builds)
                first[name].append(seconds[0])
                again[name] += seconds[1:]
    print(f"a scaffolded lecture, uncompressed (serve --watch); before = {args.before}, after = this tree")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    print(
        f"{'seconds':<34} {'before med':>10} {'after med':>10} {'ratio':>6} {'before min':>10} {'after min':>10}"
    )
    for label, data in (("first build of a process", first), ("each rebuild after it", again)):
        b, a = data["before"], data["after"]
        print(
            f"{label:<34} {statistics.median(b):>10.3f} {statistics.median(a):>10.3f} "
            f"{statistics.median(a) / statistics.median(b):>6.2f} {min(b):>10.3f} {min(a):>10.3f}"
        )


if __name__ == "__main__":
    main()
