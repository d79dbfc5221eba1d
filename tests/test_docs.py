"""The documentation site (``docs/``, ``mkdocs.yml``) stays true to the code.

Cheap checks on the markdown itself, no site build needed:

* every relative link of a page (and of the README, checked as a page), and every page of the
  ``nav``, points to a file that exists;
* every repository path (``exactalign/...``, ``tests/...``) and every dotted name
  (``exactalign.metrics.coref``) a page quotes in inline code exists;
* every ``pycon`` block runs as a doctest (one namespace per page, in a copy of
  ``docs/examples/``);
* every ``$ exactalign COMMAND`` line names a sub-command of ``exactalign --help``, every
  ``make TARGET`` a Makefile target, every ``python -m experiments ...`` a registered action;
* a ``console`` block preceded by ``<!-- run -->`` (or ``<!-- run exit=N -->``) is run in a
  copy of ``docs/examples/`` and must exit with that status and print what the page shows (doctest's
  ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``: ``...`` stands for timings and elided lines);
* the table of shipped declared metrics lists exactly :data:`exactalign.declared.library.LIBRARY`.

The site build itself (``mkdocs build --strict``) runs only when mkdocs is installed (the
``docs`` extra), and is skipped otherwise.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
PAGES = sorted(DOCS.rglob("*.md"))
#: The README is checked as a page (links, quoted names, commands, runnable blocks), not in the nav.
README = ROOT / "README.md"
CHECKED = [*PAGES, README]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

FENCE = re.compile(r"^(?P<marker><!--\s*run(?:\s+exit=(?P<exit>\d+))?\s*-->\n)?"
                   r"```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```\s*$", re.M | re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"`([^`\n]+)`")
REPO_PATH = re.compile(r"^(?:exactalign|tests|experiments|requirements|docs)/[\w./-]*[\w/]$")
DOTTED = re.compile(r"^exactalign(?:\.\w+)+$")


def rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(page: Path) -> list[dict]:
    """The fenced code blocks of a page: lang, body, run marker (None or the exit status)."""
    out = []
    for m in FENCE.finditer(page.read_text(encoding="utf-8")):
        run = None if m["marker"] is None else int(m["exit"] or 0)
        out.append({"lang": m["lang"], "body": m["body"], "run": run})
    return out


def prose(page: Path) -> str:
    """A page without its fenced code blocks (links and inline code live in the prose)."""
    return FENCE.sub("", page.read_text(encoding="utf-8"))


def commands(body: str) -> list[tuple[str, str]]:
    """``(command line, expected output)`` for each ``$ `` line of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return [(cmd, "\n".join(lines).strip("\n") + "\n") for cmd, lines in out]


def shell_lines(page: Path) -> list[str]:
    """Every command line of the page's shell blocks (``console``: ``$ `` lines; ``sh``: all)."""
    lines = []
    for b in blocks(page):
        if b["lang"] == "console":
            lines += [cmd for cmd, _ in commands(b["body"])]
        elif b["lang"] in ("sh", "bash", "shell"):
            lines += [ln.split(" #")[0].strip() for ln in b["body"].splitlines()
                      if ln.strip() and not ln.lstrip().startswith("#")]
    return lines


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    """A copy of ``docs/examples/`` to run in: what the examples write (``exactalign validate``
    leaves a hypothesis database in the current directory) stays out of the checkout."""
    return Path(shutil.copytree(EXAMPLES, tmp_path_factory.mktemp("docs") / "examples"))


def test_there_are_pages():
    assert (ROOT / "mkdocs.yml").is_file()
    assert {"index.md", "exact.md", "json.md", "experiments.md"} <= {p.name for p in PAGES}


# --------------------------------------------------------------------------------------------
# links and names
# --------------------------------------------------------------------------------------------
def test_nav_pages_exist():
    nav = re.findall(r":\s*([\w/.-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M)
    assert nav, "mkdocs.yml has no nav"
    missing = [p for p in nav if not (DOCS / p).is_file()]
    assert not missing, f"mkdocs.yml's nav names missing pages: {missing}"
    orphans = [rel(p) for p in PAGES if str(p.relative_to(DOCS)) not in nav]
    assert not orphans, f"pages not in mkdocs.yml's nav: {orphans}"


@pytest.mark.parametrize("page", CHECKED, ids=rel)
def test_links_point_to_existing_files(page):
    broken = []
    for target in LINK.findall(prose(page)):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # external (http:, mailto:) or an anchor on the same page
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, f"{rel(page)} links to missing files: {broken}"


def resolve_dotted(name: str) -> bool:
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        try:
            for attr in parts[k:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize("page", CHECKED, ids=rel)
def test_quoted_paths_and_names_exist(page):
    missing = []
    for code in INLINE_CODE.findall(prose(page)):
        code = code.strip()
        if REPO_PATH.match(code) and not (ROOT / code).exists():
            missing.append(code)
        elif DOTTED.match(code) and not resolve_dotted(code):
            missing.append(code)
    assert not missing, f"{rel(page)} quotes paths or names that do not exist: {missing}"


def test_declared_metric_table_lists_the_library():
    from exactalign.declared.library import LIBRARY

    text = (DOCS / "metrics" / "declared.md").read_text(encoding="utf-8")
    section = text.split("## Shipped metrics", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([\w-]+)` \|", section, re.M)
    assert listed == list(LIBRARY), "docs/metrics/declared.md's table differs from LIBRARY"


# --------------------------------------------------------------------------------------------
# python examples
# --------------------------------------------------------------------------------------------
PYCON_PAGES = [p for p in CHECKED if any(b["lang"] == "pycon" for b in blocks(p))]


@pytest.mark.parametrize("page", PYCON_PAGES, ids=rel)
def test_python_examples_run(page, examples, monkeypatch):
    monkeypatch.chdir(examples)
    text = "\n".join(b["body"] for b in blocks(page) if b["lang"] == "pycon")
    test = doctest.DocTestParser().get_doctest(text, {}, rel(page), rel(page), 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=out.write)
    assert runner.failures == 0, out.getvalue()


# --------------------------------------------------------------------------------------------
# shell examples
# --------------------------------------------------------------------------------------------
def subcommands() -> set[str]:
    from exactalign.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(["--help"])  # argparse exits; exactalign's main may return instead
    listing = out.getvalue().split("commands:", 1)[1]
    return set(re.findall(r"^ {4}(\w+)", listing, re.M))


def make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))


@pytest.mark.parametrize("page", [p for p in CHECKED if shell_lines(p)], ids=rel)
def test_shell_examples_name_existing_commands(page):
    known, targets = subcommands(), make_targets()
    bad = []
    for line in shell_lines(page):
        words = shlex.split(line.split(" #")[0])
        words = [w for w in words if "=" not in w or w.startswith("-")]  # drop VAR=value
        if not words:
            continue
        if words[0] == "exactalign":
            if len(words) > 1 and not words[1].startswith("-") and words[1] not in known:
                bad.append(line)
        elif words[0] == "make":
            if any(t not in targets for t in words[1:] if not t.startswith("-")):
                bad.append(line)
        elif words[:3] == ["python", "-m", "experiments"]:
            if len(words) < 4 or words[3] not in ("list", "run", "figures"):
                bad.append(line)
    assert not bad, f"{rel(page)}: commands that do not exist: {bad}"


RUNNABLE = [pytest.param(page, k, b, id=f"{rel(page)}#{k}")
            for page in CHECKED for k, b in enumerate(blocks(page)) if b["run"] is not None]


def run_command(cmd: str) -> tuple[int, str]:
    words = shlex.split(cmd)
    if words[0] == "exactalign":
        from exactalign.cli import main

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                rc = main(words[1:])
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
        return rc or 0, out.getvalue()
    assert words[0] == "python", f"cannot run {cmd!r} (only exactalign and python)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    p = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True, env=env,
                       timeout=120)
    return p.returncode, p.stdout


@pytest.mark.parametrize("page,k,block", RUNNABLE)
def test_runnable_shell_examples(page, k, block, examples, monkeypatch):
    assert block["lang"] == "console", f"{rel(page)}: <!-- run --> must precede a console block"
    monkeypatch.chdir(examples)
    checker = doctest.OutputChecker()
    for cmd, expected in commands(block["body"]):
        rc, got = run_command(cmd)
        assert rc == block["run"], f"{cmd}: exit status {rc}, the page says {block['run']}"
        assert checker.check_output(expected, got, FLAGS), (
            f"{rel(page)}: `{cmd}` no longer prints what the page shows:\n"
            + checker.output_difference(doctest.Example(cmd, expected), got, FLAGS))


# --------------------------------------------------------------------------------------------
# the site
# --------------------------------------------------------------------------------------------
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (the docs extra)")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (the docs extra)")
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "site" / "api" / "exactalign" / "index.html").is_file()
