"""The house plan, as a test: every import -- at module level or inside a function, lazy ones
included -- points down the floors, and no two modules import each other in a circle.

Floors, from the ground up (docs/architecture.md)::

    0  core/                              the linear model, results, solve, deadlines
    1  backends/, significance.py         solvers (they register with core); statistics
    2  problems/                          one matching problem per module, four faces each
    3  io/, data/, metrics/, registry.py, readers; the pilot data (registry, fetch, recipes); task
       perturb/, synthetic.py, similarity metrics built on problems; the problem registry;
       drs.py                             generators; a family's Python facade
    4  declared/                          declared metrics (built on problems, io, metrics)
    5  testing/                           hypothesis strategies and recorded peer outputs
    6  cli/, __main__.py                  the command line
    7  experiments/                       the experiments (on top of everything)

``exactalign/__init__.py`` is the public facade: its names are resolved lazily (PEP 562) and may
come from any floor. Within one floor, ``io`` never imports ``metrics`` (readers know nothing of
scoring).

A module keeps its ``_private`` names to itself: a helper that two modules use lives in one of
them (or a shared module) under a public name. The packages that still take another module's
private names are listed in :data:`PRIVATE_NAME_DEBT`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("exactalign", "experiments")

FLOORS = {
    "exactalign.core": 0,
    "exactalign.backends": 1, "exactalign.significance": 1,
    "exactalign.problems": 2,
    "exactalign.io": 3, "exactalign.data": 3, "exactalign.metrics": 3, "exactalign.registry": 3,
    "exactalign.perturb": 3, "exactalign.synthetic": 3, "exactalign.similarity": 3,
    "exactalign.drs": 3,
    "exactalign.declared": 4,
    "exactalign.testing": 5,
    "exactalign.cli": 6, "exactalign.__main__": 6,
    "experiments": 7,
}
#: Same-floor imports that would be a layering break.
FORBIDDEN = {("exactalign.io", "exactalign.metrics")}
#: Packages (or modules) whose modules still take a ``_private`` name of another module, and
#: which: a debt to pay, not a licence. Everywhere else the rule holds.
PRIVATE_NAME_DEBT: dict[str, str] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str) -> str | None:
    """The longest project module ``name`` refers to (``a.b.c`` may be ``a.b`` plus a name)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module: str) -> set[str]:
    """The project modules ``module`` imports anywhere in its body."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        for name in names:
            target = _known(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {m: imports(m) for m in MODULES}


def floor(module: str) -> tuple[str, int]:
    for prefix in sorted(FLOORS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return prefix, FLOORS[prefix]
    raise AssertionError(f"{module} is on no floor: add it to FLOORS (and docs/architecture.md)")


def test_every_module_has_a_floor():
    for m in MODULES:
        if m != "exactalign":
            floor(m)


def test_every_import_points_down():
    up = []
    for a, targets in GRAPH.items():
        if a == "exactalign":  # the lazy public facade
            continue
        fa, la = floor(a)
        for b in targets:
            if b == "exactalign":
                continue
            fb, lb = floor(b)
            if lb > la or (fa, fb) in FORBIDDEN:
                up.append(f"{a} (floor {la}) imports {b} (floor {lb})")
    assert not up, "\n".join(sorted(up))


def test_no_import_circles():
    """Depth-first search for a cycle among the modules (facade excluded)."""
    graph = {a: {b for b in bs if b != "exactalign"} for a, bs in GRAPH.items()
             if a != "exactalign"}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_the_checker_sees_lazy_and_relative_imports():
    """A function-level relative import counts: cli/score imports declared lazily."""
    assert "exactalign.declared.library" in GRAPH["exactalign.cli.score"]
    assert floor("exactalign.cli.score")[1] > floor("exactalign.declared.library")[1]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_taken(module: str, source: str | None = None) -> list[str]:
    """``_private`` names of other project modules that ``module`` (its file, or ``source``)
    uses: imported by name (``from .x import _helper``) or reached through a module it imported
    (``x._helper``)."""
    path = MODULES[module]
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    taken, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in MODULES:
                    bound[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            for a in node.names:
                if f"{base}.{a.name}" in MODULES:          # a submodule, bound to a name
                    bound[a.asname or a.name] = f"{base}.{a.name}"
                elif _private(a.name) and _known(base) not in (None, module):
                    taken.append(f"{module} takes {a.name} from {_known(base)}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and _private(node.attr) and bound.get(node.value.id, module) != module):
            taken.append(f"{module} takes {node.attr} from {bound[node.value.id]}")
    return taken


def _in_debt(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in PRIVATE_NAME_DEBT)


def test_no_module_takes_another_modules_private_names():
    """A helper two modules share lives under a public name (the split of metrics/temporal.py
    gave ``links.written``, ``corpus.check_same_documents``, ... their names; that of
    problems/latent.py, ``hillclimb.Climber``, ``model.mapping_array``, ...)."""
    taken = [t for m in MODULES if not _in_debt(m) for t in private_names_taken(m)]
    assert not taken, "\n".join(sorted(taken))


def test_the_private_name_check_sees_both_forms():
    """The check finds a private name imported by name and one reached through a module, and
    finds the debts where the list says they are."""
    source = ("from ...problems import temporal as tp\n"
              "from .corpus import DocScore, _hidden\n"
              "from . import timegraph\n"
              "x = tp._ALIASES, timegraph._NIL, tp.INVERSE, tp.__name__\n"
              "def _own():\n    return _own\n")
    assert sorted(private_names_taken("exactalign.metrics.temporal.links", source)) == [
        "exactalign.metrics.temporal.links takes _ALIASES from exactalign.problems.temporal",
        "exactalign.metrics.temporal.links takes _NIL from exactalign.metrics.temporal.timegraph",
        "exactalign.metrics.temporal.links takes _hidden from exactalign.metrics.temporal.corpus"]
    assert private_names_taken("exactalign.metrics.muc4.pairs",
                               "from .config1992 import _hidden\n") == [
        "exactalign.metrics.muc4.pairs takes _hidden from exactalign.metrics.muc4.config1992"]
    for m in ("exactalign.metrics.temporal", "exactalign.problems.temporal",
              "exactalign.problems.latent", "exactalign.metrics.nugget",
              "exactalign.metrics.muc4"):
        assert not _in_debt(m)
        assert any(x.startswith(m + ".") for x in MODULES), f"{m} is a package of modules"
