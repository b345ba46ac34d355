"""The results website of the committed results/, opened page by page in headless Chromium (Playwright).

Builds the site from the repository's results/ into a tmp folder (``python -m csrepro.report --site --out``)
and loads every page from file://: no console or page errors, every local link resolves (anchors
included), every image decodes, the stylesheet applies, and the paper tables hold the numbers of
their comparison.csv. A screenshot of the index goes to $CSREPRO_ARTIFACTS/site-index.png (else the
test's tmp folder; the path is printed).

Uses the system Chromium (/usr/bin/chromium), never `playwright install`. Skipped when it or the
playwright package is missing, except under CI (environment variable CI set), where that fails.
"""

import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import pytest

from csrepro.report.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: experiments whose rendered tables are checked against comparison.csv at least
CHECKED = ("rebel_uci", "guess_averse_uci")


def _missing() -> str:
    """Why the browser test cannot run here ("" when it can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install 'playwright>=1.40'; no `playwright install`)"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    return ""


WHY = _missing()
if WHY and os.environ.get("CI"):
    pytest.fail(f"CI is set but the browser test cannot run: {WHY}", pytrace=False)
pytestmark = pytest.mark.skipif(bool(WHY), reason=WHY or "runs")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site-out")
    assert main(["--site", "--out", str(out), f"results.root={ROOT / 'results'}",
                 "--conf-dir", str(ROOT / "conf"), "--experiments-dir", str(ROOT / "experiments")]) == 0
    return out / "site"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="csrepro-chromium-")
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                            headless=True, viewport={"width": 1280, "height": 900})
            # local files only: any other request fails the page
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:"))
                          else route.abort())
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class Visit:
    """One page loaded: its console errors, page errors, failed requests, links, images and ids."""

    def __init__(self, context, path: Path):
        page = context.new_page()
        self.console, self.errors, self.failed = [], [], []
        page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("requestfailed", lambda r: self.failed.append(r.url))
        page.goto(path.as_uri(), wait_until="load")
        self.links = page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")
        self.images = page.eval_on_selector_all(
            "img", "els => els.map(i => [i.getAttribute('src'), i.complete, i.naturalWidth, i.alt])")
        self.ids = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        self.header_bg = page.eval_on_selector("header.top", "e => getComputedStyle(e).backgroundColor")
        self.cmp = page.eval_on_selector_all("table.cmp tbody tr", """rows => rows.map(r => {
            const cell = c => r.querySelector('td.' + c);
            return {experiment: r.closest('table').dataset.experiment, table: r.closest('table').dataset.table,
                    cls: r.className, row: cell('row').textContent, column: cell('column').textContent,
                    published: cell('published').textContent, published_value: cell('published').dataset.value,
                    reproduced: cell('reproduced').textContent, reproduced_value: cell('reproduced').dataset.value,
                    reproduced_cls: cell('reproduced').className, se_value: cell('se').dataset.value};
        })""")
        self.page = page


@pytest.fixture(scope="module")
def visits(site, browser):
    out = {p.relative_to(site).as_posix(): Visit(browser, p) for p in sorted(site.rglob("*.html"))}
    yield out
    for v in out.values():
        v.page.close()


def test_every_page_loads_clean(site, visits):
    assert {"index.html", "leaderboard.html", "papers/rebel.html", "papers/guess_averse.html",
            "notes/rebel.html"} <= set(visits)
    for name, v in visits.items():
        assert v.console == [] and v.errors == [] and v.failed == [], name
        assert v.header_bg == "rgb(36, 41, 47)", f"{name}: site.css not applied"


def test_every_local_link_resolves(site, visits):
    root = site.resolve()
    checked = 0
    for name, v in visits.items():
        for href in v.links:
            url = urlsplit(href)
            assert url.scheme == "file", f"{name}: link leaves the site: {href}"
            path = Path(unquote(url.path)).resolve()
            assert root in path.parents and path.is_file(), f"{name}: broken link {href}"
            rel = path.relative_to(root).as_posix()
            if rel.endswith(".html"):
                assert rel in visits, f"{name}: {href} is no page of the site"
                assert not url.fragment or url.fragment in visits[rel].ids, f"{name}: no anchor for {href}"
            checked += 1
    assert checked > 100


def test_every_image_decodes(visits):
    images = 0
    for name, v in visits.items():
        for src, complete, width, alt in v.images:
            assert complete and width > 0, f"{name}: image {src} did not load"
            assert alt.strip(), f"{name}: image {src} has no alt text"
            images += 1
    assert images > 0


def test_paper_tables_equal_their_comparison_files(site, visits):
    rendered = pd.DataFrame([row for v in visits.values() for row in v.cmp])
    seen = set()
    for name, mine in rendered.groupby("experiment", sort=False):
        comp = pd.read_csv(ROOT / "results" / name / "comparison.csv")
        comp = pd.concat([g for _, g in comp.groupby("table", sort=False)])  # the page's order: table by table
        assert len(mine) == len(comp), name
        for r, c in zip(mine.itertuples(), comp.itertuples()):
            where = f"{name} {c.table} {c.row} {c.column}"
            assert (r.table, r.row, r.column) == (c.table, str(c.row), str(c.column)), where
            assert float(r.published_value) == c.published and float(r.published) == pytest.approx(c.published), where
            if pd.isna(c.reproduced):
                assert r.reproduced_value == "" and r.reproduced == "—" and "missing" in r.cls.split(), where
                continue
            assert float(r.reproduced_value) == c.reproduced, where
            assert float(r.reproduced) == pytest.approx(c.reproduced, rel=5e-4, abs=1e-9), where
            if not pd.isna(c.reproduced_se):
                assert float(r.se_value) == c.reproduced_se, where
            outside = not (c.within is True or str(c.within) == "True")
            assert ("outside" in r.cls.split()) == outside and ("outside" in r.reproduced_cls.split()) == outside, where
        seen.add(name)
    assert set(CHECKED) <= seen, f"not rendered: {set(CHECKED) - seen}"


def test_index_screenshot(site, browser, tmp_path):
    folder = Path(os.environ["CSREPRO_ARTIFACTS"]) if os.environ.get("CSREPRO_ARTIFACTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "site-index.png"
    page = browser.new_page()
    page.goto((site / "index.html").as_uri(), wait_until="load")
    page.screenshot(path=str(shot), full_page=True)
    page.close()
    assert shot.stat().st_size > 10_000
    print(f"screenshot of the site index: {shot}")
