"""A package split from one module, kept one namespace.

When a module of several ideas becomes a package of modules of one idea each, its
``__init__.py`` hands on every name the module had, so that no importer changes. What a plain
re-export would change is setting a name: ``monkeypatch.setattr(package, "LIMIT", 1)`` (or
``package.LIMIT = 1``) would rebind the package's name only, while the functions of its modules
read their own. :func:`one_namespace` makes the package pass such a setting on to every module of
the package that holds the name (where it is defined, and where it was imported), as it was when
the package was one module. ``legacy`` maps the old private names of helpers the split made
public (a helper two modules use lives under a public name) to those public names."""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping, Sequence


def one_namespace(package: str, parts: Sequence[types.ModuleType],
                  legacy: Mapping[str, str] = types.MappingProxyType({})) -> None:
    """Make the module ``package`` (its ``__init__`` calls this last, with ``__name__``) one
    namespace with its modules ``parts``; bind each old name of ``legacy`` to its public name."""
    module = sys.modules[package]
    for old, new in legacy.items():
        setattr(module, old, getattr(module, new))
    parts, legacy = tuple(parts), dict(legacy)

    class _OneNamespace(types.ModuleType):
        def __setattr__(self, name, value):
            public = legacy.get(name, name)
            for part in parts:
                if public in vars(part):
                    setattr(part, public, value)
            if public != name:
                super().__setattr__(public, value)
            super().__setattr__(name, value)

    module.__class__ = _OneNamespace
