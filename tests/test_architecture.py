"""The house plan, as a test: every import -- at module level or inside a function, lazy ones
included -- points down the floors, and no two modules import each other in a circle.

Floors, from the ground up (docs/architecture.md)::

    0  core/, data.py                     the linear model, results, solve, deadlines; pilot data
    1  backends/, significance.py         solvers (they register with core); statistics
    2  problems/                          one matching problem per module, four faces each
    3  io/, metrics/, registry.py,        readers; task metrics built on problems; the problem
       perturb/, synthetic.py, similarity registry; generators
    4  declared/                          declared metrics (built on problems, io, metrics)
    5  testing/                           hypothesis strategies and recorded peer outputs
    6  cli/, __main__.py                  the command line
    7  experiments/                       the experiments (on top of everything)

``exactalign/__init__.py`` is the public facade: its names are resolved lazily (PEP 562) and may
come from any floor. Within one floor, ``io`` never imports ``metrics`` (readers know nothing of
scoring)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("exactalign", "experiments")

FLOORS = {
    "exactalign.core": 0, "exactalign.data": 0,
    "exactalign.backends": 1, "exactalign.significance": 1,
    "exactalign.problems": 2,
    "exactalign.io": 3, "exactalign.metrics": 3, "exactalign.registry": 3,
    "exactalign.perturb": 3, "exactalign.synthetic": 3, "exactalign.similarity": 3,
    "exactalign.declared": 4,
    "exactalign.testing": 5,
    "exactalign.cli": 6, "exactalign.__main__": 6,
    "experiments": 7,
}
#: Same-floor imports that would be a layering break.
FORBIDDEN = {("exactalign.io", "exactalign.metrics")}


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
