"""`python -m csrepro.report --site` (csrepro.report.site) on a tmp results root: pages, numbers, highlights,
fidelity counts (within / explained / unexplained, from the ledger), claims, findings, stamps, leaderboard,
safety (an error leaves the old site) and no leaked paths. No browser."""

import html
import json
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from csrepro.report import site as site_module
from csrepro.report.__main__ import main
from csrepro.report.fidelity import counts, short_cells
from csrepro.report.site import (SiteError, SiteExperiment, build_site, csv_table, markdown_blocks, notes_sections,
                                 V1_CAVEAT, number, relative_command, scrub, table_columns, verdict, verdict_text)

ALPHA = """\
table,row,column,published,reproduced,reproduced_se,tolerance,within,n_trials,n_planned
Table 1,iris,m1,12.5,12.9,0.3,1.25,True,5,5
Table 1,iris,m2,10,15.123456789,0.5,1,False,5,5
Table 1,wine,m1,3.25,,,0.325,,0,0
Table 2,iris,m1,0.875,0.8812345,0.01,0.0875,True,2,5
Table 2,wine,m1,0.5,0.9,0.02,0.05,False,2,5
"""
BETA = """\
table,row,column,published,reproduced,reproduced_se,tolerance,within
Fig. 3,synthetic,rebel,90,6.5,1.743201078,9,False
"""
RUNS = {"alpha": {"command": "python -m csrepro.run +exp=alpha", "started": "2030-01-02T03:00:00+00:00",
                  "finished": "2030-01-02T04:05:06+00:00", "wall_seconds": 3906.0, "git_commit": "aaa1111",
                  "trials": 10},
        "beta": {"command": "python -m csrepro.run +exp=beta", "started": "2030-02-01T00:00:00+00:00",
                 "finished": "2030-02-01T01:00:00+00:00", "wall_seconds": 3600.0, "git_commit": "bbb2222-dirty",
                 "trials": 4}}
NOTES_A = "# Paper A: notes\n\nIntro <script>alert(1)</script> & more.\n\n## Deviations\n\nTable 1 m2 is off.\n"


def png(width=3, height=2) -> bytes:
    """A tiny valid RGB PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture
def tree(tmp_path):
    conf, exps, results = tmp_path / "conf", tmp_path / "experiments", tmp_path / "results"
    (conf / "exp").mkdir(parents=True)
    (conf / "config.yaml").write_text("defaults:\n  - csrepro_schema\n  - _self_\n")
    (conf / "exp" / "alpha.yaml").write_text("name: alpha\npaper: pa\n")
    (conf / "exp" / "beta.yaml").write_text("name: beta\npaper: pb\n")
    (conf / "exp" / "nopaper.yaml").write_text("name: nopaper\n")
    (exps / "pa").mkdir(parents=True)
    (exps / "pa" / "NOTES.md").write_text(NOTES_A)
    (exps / "pb").mkdir()
    (exps / "pb" / "NOTES.md").write_text("# Paper B\n\n## Fig. 3\n\nwhy\n")
    for name, text in (("alpha", ALPHA), ("beta", BETA)):
        (results / name / "figures").mkdir(parents=True)
        (results / name / "comparison.csv").write_text(text)
        (results / name / "run_info.json").write_text(json.dumps(RUNS[name]))
    (results / "alpha" / "figures" / "plot_one.png").write_bytes(png())
    (results / "alpha" / "figures" / "claims.csv").write_text("claim,holds,diff\n1,True,0.123456\n2,False,-1.5\n")
    (results / "alpha" / "tables").mkdir()
    (results / "alpha" / "tables" / "table_1.md").write_text(
        "**Table 1** (risk)\n\n| Dataset | m1 | m2 |\n|:--|--:|--:|\n| iris | **12.9 ± 0.3** | 15.1 ± 0.5† |\n"
        "|  | 12.5 | 10 |\n\nrep = reproduced; `code` <b>raw</b>\n")
    args = ["--site", "--conf-dir", str(conf), "--experiments-dir", str(exps), f"results.root={results}"]
    return SimpleNamespace(root=tmp_path, conf=conf, exps=exps, results=results, site=results / "site", args=args)


class Cells(HTMLParser):
    """Elements of an HTML page: ``cmp`` rows of table.cmp (table id, td class -> (attrs, text)),
    ``fidelity`` rows of the index (experiment, table, counts attrs), ``stamps`` (p.stamp.run attrs),
    every ``ids``, ``hrefs`` and ``srcs``."""

    def __init__(self, text):
        super().__init__()
        self.cmp, self.fidelity, self.stamps, self.ids, self.hrefs, self.srcs = [], [], [], set(), [], []
        self.table = self.row = self.td = self.fid = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "id" in a:
            self.ids.add(a["id"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if "src" in a:
            self.srcs.append(a["src"])
        if tag == "table" and "cmp" in cls:
            self.table = a["data-table"]
        elif tag == "tr" and self.table is not None and "cell" in cls:
            self.row = {"_table": self.table, "_class": cls}
        elif tag == "td" and self.row is not None:
            self.td = cls[-1] if cls[-1] not in ("outside", "within", "missing") else cls[-2]
            self.row[self.td] = [a, ""]
        elif tag == "tr" and "table-fidelity" in cls:
            self.fid = {"experiment": a["data-experiment"], "table": a["data-table"],
                        "counts": {k: int(a[f"data-{k.replace('_', '-')}"]) for k in SPLIT}}
        elif tag == "p" and "stamp" in cls and "run" in cls:
            self.stamps.append(a)

    def handle_data(self, data):
        if self.row is not None and self.td is not None:
            self.row[self.td][1] += data

    def handle_endtag(self, tag):
        if tag == "td":
            self.td = None
        elif tag == "tr" and self.row is not None:
            self.cmp.append(self.row)
            self.row = None
        elif tag == "tr" and self.fid is not None:
            self.fidelity.append(self.fid)
            self.fid = None
        elif tag == "table":
            self.table = None


SPLIT = ("published", "within", "named", "published_only", "unexplained")


def pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text() for p in site.rglob("*.html")}


def test_every_page_and_file(tree, capsys):
    assert main(tree.args) == 0
    assert "wrote" in capsys.readouterr().out
    assert set(pages(tree.site)) == {"index.html", "leaderboard.html", "papers/pa.html", "papers/pb.html",
                                     "notes/pa.html", "notes/pb.html"}
    assert (tree.site / "site.css").is_file()
    assert (tree.site / "figures" / "alpha" / "plot_one.png").read_bytes() == png()
    assert (tree.site / "data" / "alpha" / "claims.csv").is_file()
    assert not [p for p in tree.results.iterdir() if p.name.startswith(".site")]  # no scratch left
    # every relative link and image of every page resolves to a file of the site, anchors included
    texts = pages(tree.site)
    parsed = {name: Cells(text) for name, text in texts.items()}
    for name, p in parsed.items():
        for ref in p.hrefs + p.srcs:
            if ref.startswith("data:"):
                continue
            assert "://" not in ref and not ref.startswith("/"), (name, ref)
            path, _, frag = ref.partition("#")
            dest = (tree.site / name).parent / path if path else tree.site / name
            assert dest.resolve().is_file() and tree.site.resolve() in dest.resolve().parents, (name, ref)
            if frag:
                assert frag in parsed[dest.resolve().relative_to(tree.site.resolve()).as_posix()].ids, (name, ref)


def test_paper_tables_hold_the_comparison_numbers(tree):
    assert main(tree.args) == 0
    comp = pd.read_csv(tree.results / "alpha" / "comparison.csv")
    rows = Cells((tree.site / "papers" / "pa.html").read_text()).cmp
    assert len(rows) == len(comp)
    for r, c in zip(rows, comp.itertuples()):
        assert (r["_table"], r["row"][1], r["column"][1]) == (c.table, c.row, c.column)
        assert float(r["published"][0]["data-value"]) == c.published
        assert float(r["published"][1]) == c.published
        if pd.isna(c.reproduced):
            assert r["reproduced"][0]["data-value"] == "" and r["reproduced"][1] == "—"
            assert "missing" in r["_class"]
            continue
        assert float(r["reproduced"][0]["data-value"]) == c.reproduced
        assert float(r["reproduced"][1]) == pytest.approx(c.reproduced, rel=5e-4)
        assert float(r["se"][0]["data-value"]) == c.reproduced_se
        # out-of-tolerance cells carry the highlight class, on the row and on the reproduced cell
        assert ("outside" in r["_class"]) == (not c.within)
        assert ("outside" in r["reproduced"][0]["class"].split()) == (not c.within)
        if not c.within:
            assert r["status"][1].strip() == "outside"
    text = (tree.site / "papers" / "pa.html").read_text()
    assert "15.12" in text and 'href="../notes/pa.html"' in text
    # Table 2 has cells with fewer trials than planned: PARTIAL
    section = text[text.index('id="alpha--table-2"'):]
    assert "PARTIAL" in section[:section.index("</h4>")]
    assert "PARTIAL" not in text[text.index('id="alpha--table-1"'):text.index('id="alpha--table-2"')]
    # the comparison without trial columns (an older file) renders too
    beta = Cells((tree.site / "papers" / "pb.html").read_text()).cmp
    assert [(r["row"][1], float(r["published"][1]), "outside" in r["_class"]) for r in beta] == \
        [("synthetic", 90.0, True)]
    # the reproduced table and the figure
    assert "<strong>12.9 ± 0.3</strong>" in text and "&lt;b&gt;raw&lt;/b&gt;" in text
    assert '<img src="../figures/alpha/plot_one.png" alt="alpha: figure plot one">' in text


def test_index_counts_are_fidelity_counts(tree):
    assert main(tree.args) == 0
    rows = Cells((tree.site / "index.html").read_text()).fidelity
    expected = []
    for name in ("alpha", "beta"):  # no published.csv, no deviations.csv: each comparison, every miss unexplained
        comp = pd.read_csv(tree.results / name / "comparison.csv")
        for t, g in comp.groupby("table", sort=False):
            c = counts(g)
            expected.append({"experiment": name, "table": t, "counts": {
                "published": c["published"], "within": c["within"], "named": 0, "published_only": 0,
                "unexplained": c["outside"] + c["missing"]}})
    assert rows == expected
    index = (tree.site / "index.html").read_text()
    assert 'href="papers/pa.html"' in index and 'href="leaderboard.html"' in index
    assert short_cells(pd.read_csv(tree.results / "alpha" / "comparison.csv")) == 2
    assert index.count("badge partial") == 1  # alpha's Table 2


def test_stamps(tree):
    prov = SimpleNamespace(command="python -m csrepro.report --site", date="2031-05-06T07:08:09+00:00",
                           commit="ccc3333")
    build_site([SiteExperiment("alpha", "pa"), SiteExperiment("beta", "pb")], tree.results, tree.exps, tree.site,
               prov)
    index = (tree.site / "index.html").read_text()
    for run in RUNS.values():
        assert run["git_commit"] in index
    assert "2030-01-02T04:05:06+00:00" in index and "2030-02-01T01:00:00+00:00" in index  # span of the runs
    for page in pages(tree.site).values():
        assert "2031-05-06T07:08:09+00:00" in page and "ccc3333" in page  # the site's generation
    for name, paper in (("alpha", "pa"), ("beta", "pb")):
        stamps = Cells((tree.site / "papers" / f"{paper}.html").read_text()).stamps
        assert [(s["data-commit"], s["data-finished"]) for s in stamps] == \
            [(RUNS[name]["git_commit"], RUNS[name]["finished"])]
    # without run_info.json the section says so
    (tree.results / "beta" / "run_info.json").unlink()
    build_site([SiteExperiment("beta", "pb")], tree.results, tree.exps, tree.site, prov)
    assert "No run_info.json" in (tree.site / "papers" / "pb.html").read_text()


def test_notes_are_escaped_with_anchors(tree):
    assert main(tree.args) == 0
    notes = (tree.site / "notes" / "pa.html").read_text()
    assert "<script>alert" not in notes and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more." in notes
    assert 'id="deviations"' in notes and 'href="#deviations"' in notes
    assert [s["anchor"] for s in notes_sections(NOTES_A)] == ["paper-a-notes", "deviations"]


def test_leaderboard_missing_then_present(tree):
    assert main(tree.args) == 0
    page = (tree.site / "leaderboard.html").read_text()
    assert "make leaderboard" in page
    assert 'href="leaderboard.html"' in (tree.site / "index.html").read_text()
    lb = tree.results / "leaderboard"
    (lb / "figures").mkdir(parents=True)
    (lb / "figures" / "wtl.csv").write_text("method,wins,ties,losses\nrebel,3,1,0\n")
    (lb / "figures" / "leaderboard.csv").write_text("rank,method,mean_rank\n1,rebel,1.25\n2,mcboost,2.5\n")
    (lb / "figures" / "cd_diagram.png").write_bytes(png())
    (lb / "figures" / "problems.csv").write_text("problem,dataset,method,mean_cost\nglass__x,glass,rebel,0.5\n"
                                                 "nope__x,nope,rebel,0.25\n")
    (lb / "run_info.json").write_text(json.dumps({**RUNS["alpha"], "git_commit": "ddd4444"}))
    (lb / "REPORT.md").write_text("# Leaderboard\n\n- one\n- two\n")
    (tree.exps / "leaderboard").mkdir()
    (tree.exps / "leaderboard" / "NOTES.md").write_text("# Leaderboard: notes\n\n## Protocol\n\ntext\n")
    assert main(tree.args) == 0
    assert not (tree.site / "papers" / "leaderboard.html").exists()
    notes = (tree.site / "notes" / "leaderboard.html").read_text()
    assert 'href="../leaderboard.html"' in notes and "Leaderboard: notes" in notes
    page = (tree.site / "leaderboard.html").read_text()
    assert 'href="notes/leaderboard.html"' in page
    assert "make leaderboard" not in page and "ddd4444" in page
    headline = page[page.index('id="headline"'):page.index('id="figures"')]
    assert 'data-csv="data/leaderboard/leaderboard.csv"' in headline and "wtl.csv" not in headline
    assert "1.25" in page and "mcboost" in page
    assert '<img src="figures/leaderboard/cd_diagram.png"' in page
    assert (tree.site / "data" / "leaderboard" / "wtl.csv").is_file()
    # the data sets: size, features and K from the registry (a name it does not know is left out)
    assert pd.read_csv(tree.site / "data" / "leaderboard" / "datasets.csv").to_dict("records") == [
        {"dataset": "glass", "title": "Glass Identification (UCI)", "n_rows": 214, "n_features": 9, "n_classes": 6}]
    assert "Classes (K)" in page
    assert "ddd4444" in (tree.site / "index.html").read_text()


def test_an_error_leaves_the_existing_site(tree, capsys):
    assert main(tree.args) == 0
    before = {p: p.read_bytes() for p in tree.site.rglob("*") if p.is_file()}
    (tree.results / "beta" / "comparison.csv").write_text("table,row\nx,y\n")  # not a comparison file
    capsys.readouterr()
    assert main(tree.args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("report error: ") and "comparison.csv" in err[0]
    assert {p: p.read_bytes() for p in tree.site.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tree.results.iterdir()) == ["alpha", "beta", "site"]  # no scratch left
    with pytest.raises(SiteError):
        build_site([SiteExperiment("beta", "pb")], tree.results, tree.exps, tree.site,
                   SimpleNamespace(command="c", date="d", commit="e"))
    assert {p: p.read_bytes() for p in tree.site.rglob("*") if p.is_file()} == before


def test_no_absolute_paths_or_external_resources(tree):
    assert main(tree.args) == 0
    for name, text in pages(tree.site).items():
        for leak in (str(tree.root), str(Path(site_module.__file__).parents[2]), "file:", "http://", "https://"):
            assert leak not in text, (name, leak)
    assert "http" not in (tree.site / "site.css").read_text()


def test_out_and_options(tree, tmp_path):
    assert main([*tree.args, "--out", str(tmp_path / "elsewhere")]) == 0
    assert (tmp_path / "elsewhere" / "site" / "index.html").is_file() and not tree.site.exists()
    with pytest.raises(SystemExit):
        main(["--site", "--fidelity"])
    with pytest.raises(SystemExit):
        main(["--site", "alpha"])


def test_helpers():
    assert [number(x) for x in (34.44444444, 0.0123456, 12345.6, 0.0, float("nan"))] == \
        ["34.44", "0.01235", "12346", "0", ""]
    blocks = markdown_blocks("# T\n\n| a | b |\n|:--|--:|\n| **x** | 1 |\n| y |\n\npara `c`\n- i1\n  more\n- i2\n")
    assert [b["kind"] for b in blocks] == ["heading", "table", "paragraph", "list"]
    assert blocks[1]["align"] == ["", "num"] and blocks[1]["rows"][0][0] == [{"kind": "b", "text": "x"}]
    assert blocks[1]["rows"][1][1] == []  # a short row is padded
    assert blocks[3]["items"][0] == [{"kind": "text", "text": "i1 more"}]


PUBLISHED_A = """\
table,row,column,value,spread,spread_kind,unit,source,row_label,column_label
Table 1,iris,m1,12.5,,,error_pct,Paper A Table 1,Iris,M1
Table 1,iris,m2,10,,,error_pct,Paper A Table 1,Iris,M2
Table 1,wine,m1,3.25,,,error_pct,Paper A Table 1,Wine,M1
Table 2,iris,m1,0.875,,,risk,Paper A Table 2,Iris,M1
Table 2,wine,m1,0.5,,,risk,Paper A Table 2,Wine,M1
"""
DEVIATIONS_A = """\
table,row,column,cause,evidence,detail
Table 1,iris,m2,data_differs,NOTES.md#Deviations,another version of iris
Table 1,wine,*,published_only,NOTES.md#Deviations,not run
"""
CLAIMS_A = """\
id,claim,location,check,verdict,evidence,detail
a-1,m1 beats m2,Sec. 3,Table 1,holds,NOTES.md#Deviations + test:test_x + results/alpha/figures/claims.csv,by 2.2
a-2,m2 is fast,Sec. 4,timing,does not hold,results/alpha/REPORT.md,
"""


def test_ledger_split_claims_and_findings(tree):
    """With a published.csv, deviations.csv and claims.csv: the index splits each published table into within /
    explained / unexplained from the ledger, lists the claims with their evidence linked, and leads with a
    summary generated from them; the paper page colours only the unexplained cells."""
    (tree.exps / "pa" / "published.csv").write_text(PUBLISHED_A)
    (tree.exps / "pa" / "deviations.csv").write_text(DEVIATIONS_A)
    (tree.exps / "pa" / "claims.csv").write_text(CLAIMS_A)
    assert main(tree.args) == 0
    index = (tree.site / "index.html").read_text()
    rows = {(r["experiment"], r["table"]): r["counts"] for r in Cells(index).fidelity}
    # Table 1: iris m1 within, iris m2 data_differs (named), wine m1 published only; Table 2: wine m1 outside, no cause
    assert rows[("alpha", "Table 1")] == {"published": 3, "within": 1, "named": 1, "published_only": 1,
                                          "unexplained": 0}
    assert rows[("alpha", "Table 2")] == {"published": 2, "within": 1, "named": 0, "published_only": 0,
                                          "unexplained": 1}
    assert rows[("beta", "Fig. 3")]["unexplained"] == 1  # pb has no ledger: its comparison, unexplained
    summary = index[index.index('class="lead summary-sentence"'):]
    summary = html.unescape(summary[summary.index(">") + 1:summary.index("</p>")])
    assert "Of the papers' 5 published numbers, 2 are reproduced within tolerance, 1 differ" in summary
    assert "Of 2 checked claims of the papers, 1 hold, 1 do not hold, 0 undecided." in summary
    assert (tree.site / "summary.txt").read_text().strip() == summary
    assert 'href="notes/pa.html#deviations"' in index and 'href="data/alpha/claims.csv"' in index
    assert 'href="papers/pa.html#alpha"' in index and "<code>test:test_x</code>" in index
    assert 'href="data/claims/pa.csv"' in index and (tree.site / "data" / "claims" / "pa.csv").is_file()
    paper = Cells((tree.site / "papers" / "pa.html").read_text()).cmp
    by_cell = {(r["_table"], r["row"][1], r["column"][1]): r for r in paper}
    assert "explained" in by_cell[("Table 1", "iris", "m2")]["_class"]
    assert "data differs" in by_cell[("Table 1", "iris", "m2")]["cause"][1]
    assert "unexplained" in by_cell[("Table 2", "wine", "m1")]["_class"]
    assert "unexplained" not in by_cell[("Table 1", "iris", "m2")]["_class"]


def test_findings_without_inputs_say_so(tree):
    assert main(tree.args) == 0
    index = (tree.site / "index.html").read_text()
    assert "The leaderboard is not yet available" in index
    assert "The claims ledger is not yet available" in index
    assert "No cause ledger yet (experiments/pa/deviations.csv)" in index


BOARD = """\
method,group,average_rank,relative_cost,relative_low,relative_high,verdict,wins,ties,losses,reference,n_problems,\
median_fit_seconds
hgb,baseline,1.5,0.0,,,reference,,,,hgb,4,1.25
rebel,Appel 2016,2.5,0.05,0.01,0.09,costlier,0,2,2,hgb,4,0.5
combo,Koco 2013,3.0,0.08,0.02,0.2,costlier,1,1,2,hgb,4,0.75
"""


def test_verdicts_and_tables(tmp_path):
    path = tmp_path / "leaderboard.csv"
    path.write_text(BOARD)
    frame = pd.read_csv(path)
    v = verdict(frame, "all problems")
    assert (v["kind"], v["method"], v["value"], v["interval"], v["wtl"], v["reference"], v["n"]) == \
        ("dearer", "rebel", "+5.0", "[+1.0, +9.0]", "0 / 2 / 2", "hgb", 4)
    frame.loc[1, "relative_low"] = -0.01
    assert verdict(frame, "x")["kind"] == "tie"
    frame.loc[2, ["relative_cost", "relative_high"]] = [-0.1, -0.001]
    assert (verdict(frame, "x")["kind"], verdict(frame, "x")["cheaper"], verdict(frame, "x")["interval"]) == \
        ("cheaper", ["combo"], "[+2.0, -0.1]")
    lower = frame.copy()
    lower.loc[1, ["relative_cost", "relative_low", "relative_high"]] = [-0.2, -0.5, 0.1]  # lower, but spans 0
    v = verdict(lower, "x")  # a "cheaper" verdict names the method whose interval lies below 0
    assert (v["kind"], v["method"], v["cheaper"], v["value"]) == ("cheaper", "combo", ["combo"], "-10.0")
    v["n_intervals"] = 40  # the page's intervals: about 2 of 40 exclude 0 by chance at 95 %
    assert "about 2 would exclude 0 by chance alone" in verdict_text(v)
    assert verdict(frame.drop(columns="relative_cost"), "x") is None
    # a v1 table names its test-chosen best baseline, not a reference: its verdict says it is withdrawn
    v1 = verdict(frame.rename(columns={"reference": "best_baseline"}), "x")
    assert v1["reference"] == "hgb" and verdict_text(v1).endswith(V1_CAVEAT + ".")
    assert "v1 statistics" not in verdict_text(verdict(frame, "x"))
    cols = table_columns(pd.read_csv(path))
    assert [(c["label"], c["kind"]) for c in cols] == [
        ("Method", "text"), ("Group", "text"), ("Average rank", "num"),
        ("Relative cost vs reference, % [low, high]", "pct"), ("Verdict vs reference", "text"), ("W / T / L", "wtl"),
        ("Reference", "text"), ("Problems", "int"), ("Median fit time (s)", "num")]
    t = csv_table(path, "data/x/leaderboard.csv")
    cell = t["groups"][0]["rows"][1]["cells"][3]
    assert [(p["col"], p["text"], float(p["value"])) for p in cell["parts"]] == [
        ("relative_cost", "+5.0", 0.05), ("relative_low", "+1.0", 0.01), ("relative_high", "+9.0", 0.09)]
    reference = t["groups"][0]["rows"][0]["cells"]  # the reference's own comparison is empty
    assert [p["text"] for p in reference[3]["parts"]] == ["+0.0", "", ""]
    assert [p["text"] for p in reference[5]["parts"]] == ["", "", ""] and reference[5]["sort"] == ""
    # more than SPLIT_ROWS rows with a dataset column: one group per data set, every row kept
    big = pd.DataFrame({"dataset": [f"d{i % 7}" for i in range(300)], "mean_cost": range(300),
                        "ci_low": range(300), "ci_high": range(300)})
    big.to_csv(tmp_path / "problems.csv", index=False)
    t = csv_table(tmp_path / "problems.csv", "p.csv")
    assert len(t["groups"]) == 7 and sorted(r["index"] for g in t["groups"] for r in g["rows"]) == list(range(300))


def test_paths_and_commands():
    root = Path(site_module.__file__).parents[2]
    assert relative_command(f"python -m csrepro.run +exp=a results.root={root}/results --out /tmp/x/site-out") == \
        "python -m csrepro.run +exp=a results.root=results --out .../site-out"
    assert scrub("(no /work/lb/experiments/leaderboard/published.csv) and /srv/c/results/x") == \
        "(no experiments/leaderboard/published.csv) and results/x"
    assert scrub("mirror `/work/shared/datasets`, /tmp/a/b.csv") == "mirror `.../datasets`, .../b.csv"
    assert scrub(f"{root}/csrepro/x.py, ../results/a.png, http://x/results/y") == \
        "csrepro/x.py, ../results/a.png, http://x/results/y"


def test_report_markdown_images_links_and_empty_rows():
    blocks = markdown_blocks("![problems](figures/p.csv) ![fig](figures/f.png) [t](x.md)\n\n"
                             "| D | m |\n|:--|--:|\n| iris | 1 |\n|  | pub |\n|  | — |\n")
    segs = blocks[0]["text"]
    assert [(s["kind"], s.get("target")) for s in segs if s["kind"] != "text"] == [
        ("image", "figures/p.csv"), ("image", "figures/f.png"), ("link", "x.md")]
    assert len(blocks[1]["rows"]) == 1 and blocks[1]["sortable"]  # the empty "pub" row is dropped


def test_package_versions_read_the_cpu_only_xgboost_distribution(monkeypatch):
    """The module xgboost installed as the distribution xgboost-cpu (the dev extra outside macOS) has its version
    shown; a package with no installed distribution is "not installed"."""
    installed = {"xgboost-cpu": "3.2.0", "numpy": "2.0.0"}

    def version(dist):
        if dist not in installed:
            raise site_module.metadata.PackageNotFoundError(dist)
        return installed[dist]

    monkeypatch.setattr(site_module.metadata, "version", version)
    got = dict(site_module.package_versions())
    assert got["xgboost"] == "3.2.0" and got["numpy"] == "2.0.0" and got["lightgbm"] == "not installed"
