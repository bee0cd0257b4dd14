"""The deck's build: load and validate deck/*.yaml, render it to dist/ (see build.py)."""
