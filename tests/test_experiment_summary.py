"""The opening of SUMMARY.md (one headline line per experiment, provenance flags), the paper
figures' files and palette, and progress log lines with an ETA when stderr is not a terminal."""

from __future__ import annotations

import io
import json
import types
import warnings
from pathlib import Path

import pytest

from experiments import REGISTRY, plot
from experiments.runner import (
    HEADLINE_KEYS,
    ProgressLog,
    completed_rows,
    headline_cells,
    headline_of,
    parallel_map,
    write_rows,
    write_summary,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"


# ------------------------------------------------------------------------------------------
# SUMMARY.md's opening, on fake experiments
# ------------------------------------------------------------------------------------------
def fake(name: str, *, headline=None) -> types.ModuleType:
    m = types.ModuleType(name)
    m.NAME, m.DESCRIPTION = name, f"The fake experiment {name}."
    m.DATA_SOURCE = m.SEEDING = "none"
    m.COLUMNS = ("x", "gap", "error")
    m.FIGURES = ()
    m.summary = lambda rows: f"{len(rows)} rows\n"
    m.figures = lambda csv_path, out_dir: []
    if headline is not None:
        m.headline = headline
    return m


def write_fake(out: Path, name: str, rows: list[dict], *, commit: str, quick: bool = False,
               numpy: str = "2.0") -> None:
    folder = out / name
    folder.mkdir(parents=True)
    write_rows(folder / "rows.csv", rows, ("x", "gap", "error"))
    meta = {"git": {"commit": commit, "dirty": False}, "quick": quick, "config": {"seed": 0},
            "versions": {"numpy": numpy, "scipy": "1.0"}, "python": {"version": "3.11.7"},
            "rows": len(rows), "wall_time_s": 1.0, "jobs": 1, "machine": {"cpu_count": 2},
            "data": {"used": "none"}, "instances": {"total": len(rows), "failed": 0}}
    (folder / "meta.json").write_text(json.dumps(meta))


def gap_headline(rows, meta):
    below = [r["gap"] for r in rows if r["gap"] > 0]
    return {"heuristic": "greedy", "unit": "documents", "instances": len(rows),
            "below": len(below), "gap_mean": sum(below) / len(below), "gap_max": max(below),
            "gap_unit": "F1 points", "rankings_changed": 1, "rankings": 6,
            "ranking_unit": "system pairs",
            "finding": f"Greedy falls short on {len(below)} documents (commit "
                       f"{meta['git']['commit'][:4]})."}


def broken_headline(rows, meta):
    raise ValueError("no such column")


ROWS = [{"x": i, "gap": g, "error": None} for i, g in enumerate([0.0, 2.0, 0.0, 4.0])]


@pytest.fixture
def fake_out(tmp_path):
    reg = {"alpha": fake("alpha", headline=gap_headline), "beta": fake("beta"),
           "gamma": fake("gamma", headline=broken_headline)}
    write_fake(tmp_path, "alpha", ROWS, commit="a" * 40)
    write_fake(tmp_path, "beta", ROWS, commit="a" * 40)
    write_fake(tmp_path, "gamma", ROWS, commit="b" * 40, quick=True, numpy="2.1")
    return tmp_path, reg


def opening_table(text: str) -> list[str]:
    """The lines of the first markdown table of ``text``."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| experiment |"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def test_summary_opens_with_one_headline_line_per_experiment(fake_out):
    out, reg = fake_out
    text = write_summary(out, reg).read_text()
    table = opening_table(text)
    assert len(table) == 2 + 3  # header, rule, one line per experiment
    alpha, beta, gamma = table[2:]
    assert alpha.startswith("| [alpha](#alpha) | greedy | 50.0% (2 of 4 documents) | "
                            "3 / 4 F1 points | 1 of 6 system pairs | Greedy falls short on 2 "
                            "documents (commit aaaa). |")
    assert "No headline" in beta and "| – |" in beta  # optional: still one line
    assert "headline() failed: ValueError: no such column" in gamma
    # the table comes before every detail section
    assert text.index("| [gamma](#gamma)") < text.index("## alpha")


def test_summary_flags_sections_of_other_commits_versions_and_configs(fake_out):
    out, reg = fake_out
    text = write_summary(out, reg).read_text()
    head = text[:text.index("| experiment |")]
    assert "**Sections produced at different commits**" in head
    assert "`aaaaaaaaaaaa` (alpha, beta)" in head and "`bbbbbbbbbbbb` (gamma)" in head
    assert "**Versions differ between sections**: numpy: 2.0 (alpha, beta); 2.1 (gamma)" in head
    assert "scipy 1.0" in head and "Python 3.11.7" in head
    assert "**Configs differ between sections**" in head
    section = text[text.index("## gamma"):]
    assert "a different commit from the other sections" in section
    assert "a different commit" not in text[text.index("## alpha"):text.index("## beta")]


def test_summary_of_one_commit_says_so(tmp_path):
    reg = {"alpha": fake("alpha", headline=gap_headline)}
    write_fake(tmp_path, "alpha", ROWS, commit="c" * 40)
    head = write_summary(tmp_path, reg).read_text().split("| experiment |")[0]
    assert "Every section was produced at commit `cccccccccccc` (clean tree)." in head
    assert "differ" not in head


def test_headline_cells_formats():
    h = dict.fromkeys(HEADLINE_KEYS)
    h.update(heuristic="h", finding="One  sentence\nonly.", instances=200, below=0)
    assert headline_cells(h) == ["h", "0.0% (0 of 200)", "none below", "not measured",
                                 "One sentence only."]
    h.update(below=3, gap_mean=12.345, gap_max=1234.0, gap_unit="%")
    assert headline_cells(h)[1:3] == ["1.5% (3 of 200)", "12.3 / 1,234%"]


def test_every_registered_experiment_has_a_headline():
    missing = [n for n, m in REGISTRY.items() if not callable(getattr(m, "headline", None))]
    assert not missing, missing


@pytest.mark.parametrize("name", list(REGISTRY))
def test_headline_of_the_checked_in_results(name):
    """Each experiment's headline on the results in the repository (read only), when there."""
    csv_path = RESULTS / name / "rows.csv"
    if not csv_path.is_file() or not hasattr(REGISTRY[name], "headline"):
        pytest.skip(f"no results/{name}/rows.csv or no headline")
    meta = json.loads((RESULTS / name / "meta.json").read_text())
    h = headline_of(REGISTRY[name], completed_rows(csv_path), meta)
    assert set(h) == set(HEADLINE_KEYS)
    assert h["heuristic"] != "–" and "failed" not in h["finding"], h["finding"]
    assert h["finding"].endswith(".") and "\n" not in h["finding"]
    if h["instances"] is not None:
        assert 0 <= h["below"] <= h["instances"]
        if h["below"]:
            assert h["gap_max"] > 0 and h["gap_mean"] <= h["gap_max"] + 1e-9
    if h["rankings"] is not None:
        assert 0 <= h["rankings_changed"] <= h["rankings"]


# ------------------------------------------------------------------------------------------
# figures
# ------------------------------------------------------------------------------------------
def test_palette_is_okabe_ito_and_small():
    okabe_ito = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
                 "#CC79A7"}
    assert set(plot.OKABE_ITO.values()) == okabe_ito
    assert set(plot.PALETTE) <= okabe_ito and "#F0E442" not in plot.PALETTE  # no yellow lines
    assert len(plot.PALETTE) == 7 and len(set(plot.PALETTE)) == 7
    assert plot.MAX_SERIES <= len(plot.PALETTE)
    for style in plot.STYLE.values():
        assert style["color"] in okabe_ito
    plt = plot.pyplot()
    import matplotlib

    assert list(matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]) == list(plot.PALETTE)
    assert matplotlib.rcParams["pdf.fonttype"] == 42
    assert matplotlib.rcParams["legend.fontsize"] >= 7
    plt.close("all")


def test_save_writes_png_pdf_and_svg_reproducibly(tmp_path):
    plt = plot.pyplot()

    def draw(path):
        fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH, 2))
        ax.plot([1, 2], [3, 4], label="a")
        ax.set_xlabel("x [s]")
        return plot.save(fig, path)

    png = draw(tmp_path / "f.png")
    assert png == tmp_path / "f.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    pdf, svg = plot.sibling_paths(png)
    assert pdf.read_bytes().startswith(b"%PDF") and b"CreationDate" not in pdf.read_bytes()
    assert b"<svg" in svg.read_bytes() and b"x [s]" in svg.read_bytes()  # text kept as text
    first = (pdf.read_bytes(), svg.read_bytes())
    draw(tmp_path / "f.png")
    assert (pdf.read_bytes(), svg.read_bytes()) == first


def test_save_warns_about_crowded_panels(tmp_path):
    plt = plot.pyplot()
    fig, ax = plt.subplots()
    for k in range(plot.MAX_SERIES + 1):
        ax.plot([0, 1], [k, k], label=f"s{k}")
    with pytest.warns(UserWarning, match="7 series"):
        plot.save(fig, tmp_path / "crowded.png")
    fig, ax = plt.subplots()
    for k in range(plot.MAX_SERIES):
        ax.plot([0, 1], [k, k], label=f"s{k}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot.save(fig, tmp_path / "fine.png")


def test_make_figures_of_copied_results_write_vector_files_and_no_crowded_panel(tmp_path):
    """Every figure of the checked-in results, redrawn into a copy: PDF and SVG beside each
    PNG, no panel above MAX_SERIES series; the summary links them."""
    import shutil

    from experiments.runner import make_figures, present

    names = present(RESULTS)
    if not names:
        pytest.skip("no results/ in this checkout")
    for n in names:
        shutil.copytree(RESULTS / n, tmp_path / n,
                        ignore=shutil.ignore_patterns("*.png", "*.pdf", "*.svg", ".partial"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        written = make_figures(tmp_path)
    for n in names:
        for fig in REGISTRY[n].FIGURES:
            png = tmp_path / n / fig
            assert png in written and png.is_file(), png
            for vec in plot.sibling_paths(png):
                assert vec in written and vec.stat().st_size > 1000, vec
    text = write_summary(tmp_path).read_text()
    assert len(opening_table(text)) == 2 + len(names)
    for n in names:
        for fig in REGISTRY[n].FIGURES:
            stem = fig.rsplit(".", 1)[0]
            assert f"[PDF]({n}/{stem}.pdf)" in text and f"[SVG]({n}/{stem}.svg)" in text


# ------------------------------------------------------------------------------------------
# progress as log lines
# ------------------------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_progress_log_lines_have_an_eta():
    stream, clock = io.StringIO(), Clock()
    log = ProgressLog(10, "demo", stream=stream, clock=clock, interval=30)
    for _ in range(3):
        clock.t += 10
        log.update()
    log.update(7)
    lines = stream.getvalue().splitlines()
    assert "demo: 0/10 units to do" in lines[0]
    assert any("demo: 1/10 units (10%), elapsed 00:10, ETA 01:30" in ln for ln in lines)
    assert "10/10 units (100%)" in lines[-1] and lines[-1].endswith("-- done")
    assert all(ln.startswith("[") for ln in lines)  # a time stamp on every line


def test_progress_log_counts_resumed_units_but_not_in_the_rate():
    stream, clock = io.StringIO(), Clock()
    log = ProgressLog(10, "demo", initial=5, stream=stream, clock=clock, interval=1)
    clock.t += 4
    log.update()
    assert "5 resumed from the journal" in stream.getvalue()
    assert "6/10 units (60%), elapsed 00:04, ETA 00:16" in stream.getvalue()


def _square(x):
    return x * x


def test_parallel_map_logs_progress_when_stderr_is_not_a_terminal(capsys):
    assert parallel_map(_square, [1, 2, 3], desc="squares") == [1, 4, 9]
    err = capsys.readouterr().err  # pytest's capture is not a terminal
    assert "squares: 0/3 units to do" in err and "3/3 units (100%)" in err
    assert parallel_map(_square, [1, 2], desc="quiet", quiet=True) == [1, 4]
    assert "quiet" not in capsys.readouterr().err
