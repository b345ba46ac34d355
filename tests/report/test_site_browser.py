"""The results website of the committed results/, opened page by page in headless Chromium (Playwright).

Builds the site from the repository's results/ into a tmp folder (``python -m csrepro.report --site --out``)
and loads every page from file://, in one browser, at 1400 x 900 and at 390 x 844 (a phone): no console
or page errors, no page wider than the window, every local link resolves (anchors included), every
image decodes, the stylesheet applies, no absolute filesystem path, clicking a column header sorts a
table, every CSV table holds every row and number of its CSV, and the paper tables hold the numbers of
their comparison.csv.  Screenshots of the index and the leaderboard at both widths go to
$CSREPRO_ARTIFACTS (else the test's tmp folder; the paths are printed).

Uses the system Chromium (/usr/bin/chromium), never `playwright install`. Skipped when it or the
playwright package is missing, except under CI (environment variable CI set), where that fails.
"""

import os
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pandas as pd
import pytest

from csrepro.report.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: experiments whose rendered tables are checked against comparison.csv at least
CHECKED = ("rebel_uci", "guess_averse_uci")
#: the window sizes every page is checked at: a desktop and a phone
SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
#: an absolute path in a page's text: a root folder of a Unix file system, then a name
ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(?:home|root|tmp|work|usr|var|srv|mnt|opt|Users|private)/[\w.-]")


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
    assert main(["--site", "--out", str(out), f"results.root={ROOT / 'results'}"]) == 0
    return out / "site"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="csrepro-chromium-")
    try:
        with sync_playwright() as pw:
            width, height = SIZES["desktop"]
            context = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                            headless=True, viewport={"width": width, "height": height})
            # local files only: any other request fails the page
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:"))
                          else route.abort())
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


#: what a loaded page tells: links, images, ids, the header colour, the comparison rows and the CSV tables
COLLECT = """() => {
    const cell = (r, c) => r.querySelector('td.' + c);
    return {
        links: Array.from(document.querySelectorAll('a[href]'), a => a.href),
        images: Array.from(document.querySelectorAll('img'),
                           i => [i.getAttribute('src'), i.complete, i.naturalWidth, i.alt]),
        ids: Array.from(document.querySelectorAll('[id]'), e => e.id),
        header_bg: getComputedStyle(document.querySelector('header.top')).backgroundColor,
        body_px: parseFloat(getComputedStyle(document.body).fontSize),
        cmp: Array.from(document.querySelectorAll('table.cmp tbody tr'), r => ({
            experiment: r.closest('table').dataset.experiment, table: r.closest('table').dataset.table,
            cls: r.className, row: cell(r, 'row').textContent, column: cell(r, 'column').textContent,
            published: cell(r, 'published').textContent, published_value: cell(r, 'published').dataset.value,
            reproduced: cell(r, 'reproduced').textContent, reproduced_value: cell(r, 'reproduced').dataset.value,
            reproduced_cls: cell(r, 'reproduced').className, se_value: cell(r, 'se').dataset.value})),
        csv: Array.from(document.querySelectorAll('table[data-csv] tbody tr'), r => ({
            csv: r.closest('table').dataset.csv, row: Number(r.dataset.row),
            values: Array.from(r.querySelectorAll('[data-col]'),
                               v => [v.dataset.col, v.dataset.value, Number(v.dataset.scale), v.textContent])})),
    };
}"""
#: per window size: the page's width, the window's, and the smallest font size of any visible text
MEASURE = """() => {
    let smallest = 100;
    for (const e of document.querySelectorAll('main *, footer *')) {
        const own = Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
        if (own && e.getClientRects().length) {
            smallest = Math.min(smallest, parseFloat(getComputedStyle(e).fontSize));
        }
    }
    return {scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth, smallest: smallest,
            figures: Array.from(document.querySelectorAll('figure img'), i => i.getBoundingClientRect().width)};
}"""


class Visit:
    """One page loaded, then measured at each window size: its errors, failed requests, measures and what
    :data:`COLLECT` finds.  The page is loaded once and the window resized: the site's script does not depend on
    the width and its stylesheet's media queries apply on a resize (a reload at each size measured the same, on
    every page, when this was changed)."""

    def __init__(self, context, path: Path):
        page = context.new_page()
        self.console, self.errors, self.failed, self.measures = [], [], [], {}
        page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("requestfailed", lambda r: self.failed.append(r.url))
        page.goto(path.as_uri(), wait_until="load")
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            self.measures[size] = page.evaluate(MEASURE)
        self.found = page.evaluate(COLLECT)
        self.ids = set(self.found["ids"])
        self.text = path.read_text()
        page.close()


@pytest.fixture(scope="module")
def visits(site, browser):
    return {p.relative_to(site).as_posix(): Visit(browser, p) for p in sorted(site.rglob("*.html"))}


def test_every_page_loads_clean(site, visits):
    assert {"index.html", "leaderboard.html", "papers/rebel.html", "papers/guess_averse.html",
            "notes/rebel.html"} <= set(visits)
    for name, v in visits.items():
        assert v.console == [] and v.errors == [] and v.failed == [], name
        assert v.found["header_bg"] == "rgb(36, 41, 47)", f"{name}: site.css not applied"


def test_no_page_is_wider_than_the_window(visits):
    for name, v in visits.items():
        for size, m in v.measures.items():
            assert m["scroll"] <= m["inner"], f"{name} at {size}: {m['scroll']} px wide in a {m['inner']} px window"
            assert m["smallest"] >= 14, f"{name} at {size}: text of {m['smallest']} px"
        phone = v.measures["phone"]
        # figures fill the phone's width (the page's padding aside)
        assert all(w >= phone["inner"] - 40 for w in phone["figures"]), f"{name}: figures {phone['figures']}"


def test_every_local_link_resolves(site, visits):
    root = site.resolve()
    checked = 0
    for name, v in visits.items():
        for href in v.found["links"]:
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


def test_every_image_decodes_and_opens_full_size(site, visits):
    images = 0
    for name, v in visits.items():
        for src, complete, width, alt in v.found["images"]:
            assert complete and width > 0, f"{name}: image {src} did not load"
            assert alt.strip(), f"{name}: image {src} has no alt text"
            images += 1
        for img in re.findall(r'<img src="([^"]+)"', v.text):
            assert f'href="{img}"' in v.text, f"{name}: {img} is not linked full size"
    assert images > 0


def test_no_absolute_path(site, visits):
    for name, v in visits.items():
        for leak in (str(ROOT), str(site.parent), "file:"):
            assert leak not in v.text, (name, leak)
        assert not ABSOLUTE.search(v.text), (name, ABSOLUTE.search(v.text)[0])


def _close(shown: str, value: float, scale: float) -> bool:
    """Whether a shown number (4 significant figures, or a percentage with one or two decimals) is ``value``."""
    x = float(shown)
    decimals = len(shown.partition(".")[2])
    return abs(x - value * scale) <= max(0.5 * 10 ** -decimals, 5e-4 * abs(value * scale)) + 1e-12


def test_csv_tables_hold_every_row_and_number(site, visits):
    rows = [r for v in visits.values() for r in v.found["csv"]]
    assert {r["csv"] for r in rows} >= {"data/leaderboard/leaderboard.csv", "data/leaderboard/problems.csv"}
    for href, shown in pd.DataFrame(rows).groupby("csv"):
        frame = pd.read_csv(site / href)
        assert sorted(shown["row"]) == list(range(len(frame))), f"{href}: rows missing or repeated"
        for r in shown.itertuples():
            where = f"{href} row {r.row}"
            assert {c for c, *_ in r.values} == set(frame.columns), where
            for col, value, scale, text in r.values:
                want = frame.at[r.row, col]
                if pd.isna(want):
                    assert value == "" and text == "", (where, col)
                elif isinstance(want, (str, bool, np.bool_)):  # text and yes/no columns: shown as written
                    want = str(want)
                    assert value == want and text == want, (where, col)
                else:
                    assert float(value) == float(want) and _close(text, float(want), scale), (where, col, text)


def test_clicking_a_header_sorts(site, browser):
    page = browser.new_page()
    page.goto((site / "leaderboard.html").as_uri(), wait_until="load")
    table = page.locator("#headline table.sortable").first
    heads = table.locator("thead th")
    labels = heads.all_text_contents()
    column = next(i for i, t in enumerate(labels) if t.strip().startswith("Average rank"))

    def order():
        return [float(x) for x in table.locator(f"tbody tr td:nth-child({column + 1})").evaluate_all(
            "tds => tds.map(td => td.dataset.sort)")]

    before = order()
    heads.nth(column).click()
    assert order() == sorted(before)
    heads.nth(column).click()
    assert order() == sorted(before, reverse=True)
    method = table.locator("tbody tr td:nth-child(1)")
    heads.nth(0).click()
    assert method.all_text_contents() == sorted(method.all_text_contents())
    page.close()


def test_paper_tables_equal_their_comparison_files(site, visits):
    rendered = pd.DataFrame([row for v in visits.values() for row in v.found["cmp"]])
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
            assert ("within" in r.cls.split()) == (c.within is True or str(c.within) == "True"), where
        seen.add(name)
    assert set(CHECKED) <= seen, f"not rendered: {set(CHECKED) - seen}"


def test_screenshots(site, browser, tmp_path):
    folder = Path(os.environ["CSREPRO_ARTIFACTS"]) if os.environ.get("CSREPRO_ARTIFACTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page = browser.new_page()
    for name in ("index", "leaderboard"):
        page.goto((site / f"{name}.html").as_uri(), wait_until="load")
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})  # as in Visit: resized, not reloaded
            shot = folder / f"site-{name}-{size}.png"
            page.screenshot(path=str(shot))  # the first screen: what a reader sees first
            assert shot.stat().st_size > 10_000
            print(f"screenshot of the site's {name} at {width} px: {shot}")
    page.close()


def test_no_page_weighs_a_megabyte(site):
    """A table of thousands of rows goes on drill-down pages (one per data set), not into one page of megabytes."""
    sizes = {p.relative_to(site).as_posix(): p.stat().st_size for p in site.rglob("*.html")}
    biggest = max(sizes, key=sizes.get)
    assert sizes[biggest] < 1 << 20, (biggest, sizes[biggest])
    assert any(p.startswith("leaderboard/problems/") for p in sizes)
