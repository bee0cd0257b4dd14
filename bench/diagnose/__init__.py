"""Investigations behind the benchmark's numbers, one script each (see bench/README.md):

- threads.py: where the start-up time goes, milestone by milestone, and the CPU seconds of
  each of the browser's thread groups (page, Python worker, V8's pool, …) from /proc;
- probe.py: does loading matplotlib make a numpy-only cell wait (target 3's timing);
- detail.py: one bare-Pyodide visit with the imports split module by module;
- ready.py: the cold page ready alone, this tree beside another commit, alternating.
"""
