"""Old names kept for one release: each warns (``DeprecationWarning``) naming the new one.

A deprecated callable carries ``__deprecated__`` (the message, as PEP 702's decorator sets it),
so that the registries of the tests (fresh noise, bad inputs) can leave it out: it only
forwards to the new name, which they cover.
"""

from __future__ import annotations

import functools
import inspect
import warnings

__all__ = ["deprecated_alias", "keyword_only", "renamed_parameters", "warn_deprecated"]


def warn_deprecated(message: str, stacklevel: int = 3) -> None:
    """Issue one ``DeprecationWarning`` pointing at the caller's caller."""
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel)


def deprecated_alias(old: str, new, replacement: str | None = None):
    """``old`` as a function that warns, then calls ``new`` with the same arguments."""
    message = f"dplab.{old} is deprecated; use {replacement or 'dplab.' + new.__name__}"

    @functools.wraps(new)
    def alias(*args, **kwargs):
        warn_deprecated(message)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: {message}.\n\n{new.__doc__ or ''}"
    alias.__deprecated__ = message
    return alias


def renamed_parameters(**renames: str):
    """Accept each old keyword (``old="new"``) for one release, with a warning naming the new one."""

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old!r} (deprecated) and {new!r}")
                    warn_deprecated(f"{func.__name__}({old}=...) is deprecated; use {new}=...")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def keyword_only(*names: str):
    """Parameters that became keyword-only (in this order), still accepted by position for one
    release with a warning: so that no call can put ``sensitivity`` after ``delta``."""

    def decorate(func):
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        n_positional = sum(p.kind in kinds for p in inspect.signature(func).parameters.values())

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            extra = args[n_positional:]
            if extra:
                if len(extra) > len(names):
                    raise TypeError(
                        f"{func.__name__}() takes at most {n_positional + len(names)} "
                        f"positional arguments, got {len(args)}"
                    )
                for name, value in zip(names, extra, strict=False):
                    if name in kwargs:
                        raise TypeError(f"{func.__name__}() got multiple values for {name!r}")
                    kwargs[name] = value
                shown = ", ".join(f"{name}=..." for name in names[: len(extra)])
                warn_deprecated(
                    f"{func.__name__}: passing {shown} by position is deprecated; "
                    f"pass it by keyword ({shown})"
                )
            return func(*args[:n_positional], **kwargs)

        return wrapper

    return decorate
