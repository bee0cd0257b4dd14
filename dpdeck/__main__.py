"""``python -m dpdeck``: the ``dpdeck`` command (:mod:`dpdeck.cli`)."""

from .cli import entry_point

if __name__ == "__main__":
    entry_point()
