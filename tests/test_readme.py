"""The README's examples, and those that moved from it to the site's pages, run and print what
their comments say. (The README's and the pages' ``<!-- run -->`` console blocks, links and
quoted names are checked by tests/test_docs.py.)"""

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COMMANDS = ROOT / "docs" / "commands.md"
PYTHON = ROOT / "docs" / "python.md"


def test_readme_is_a_first_screen():
    """The README says what exactalign is, how to run it and where the rest is: <= 150 lines."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move the rest to docs/"


def test_readme_python_example_prints_its_comments():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    expected = [line.split("#", 1)[1].strip() for line in block.splitlines()
                if line.startswith("print(") and "#" in line]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {})
    assert out.getvalue().splitlines() == expected
    assert len(expected) == 3


def _section(text: str, title: str) -> str:
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _python_block_output(page: Path, title: str) -> tuple[list[str], list[str]]:
    """(printed lines, the comments of its print lines) of the section's python block, run."""
    block = re.search(r"```python\n(.*?)```", _section(page.read_text(encoding="utf-8"),
                                                        title), re.S).group(1)
    expected = [line.split("#", 1)[1].strip() for line in block.splitlines()
                if line.startswith("print(") and "#" in line]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(page), "exec"), {})
    return out.getvalue().splitlines(), expected


def test_readme_declared_metrics_example_prints_its_comments():
    printed, expected = _python_block_output(README, "Declared metrics")
    assert printed == expected == ["optimal 0.5 1.0"]


def test_declared_metrics_commands_run():
    import shlex

    import pytest

    from exactalign import cli
    from exactalign.data import resolve_data_dir

    data = resolve_data_dir()
    if not data.available:
        pytest.skip("pilot data not available")
    block = re.search(r"```sh\n(.*?)```", _section(COMMANDS.read_text(encoding="utf-8"),
                                                    "Declared metrics: score and validate"),
                      re.S).group(1)
    lines = [line for line in block.splitlines() if line.startswith("exactalign ")]
    assert len(lines) == 5
    for line in lines:
        argv = shlex.split(line.replace("PILOT", str(data.path)))[1:]
        with contextlib.redirect_stdout(io.StringIO()):
            rc = cli.main(argv)
        # validate exits 1 when it finds the heuristic short of the optimum (it does: first fit)
        assert rc == (1 if argv[0] == "validate" else 0), line


def test_training_loop_example_prints_its_comments():
    printed, expected = _python_block_output(PYTHON, "In a training loop")
    assert printed == expected
    assert len(expected) == 3
