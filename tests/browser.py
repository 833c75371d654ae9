"""A real headless browser for tests of generated HTML pages.

Playwright drives the system's Chromium (Debian package `chromium`, which
`.ci/run` installs); Playwright's own browser download cannot run on a closed
network. tests/conftest.py makes its `browser` and `page` fixtures every test's (once:
a module importing them itself would start a second Playwright session); ask by name:

    from browser import file_url

    def test_sheet(page, tmp_path):
        page.goto(file_url(tmp_path / "sheet.html"))
        assert page.locator(".card").count() == 12
"""
import atexit
import base64
import shutil
from pathlib import Path

import pytest

# The network-related switches stop Chromium from reaching out at start-up;
# on a closed network those connections are refused by the hundred.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RuntimeError("browser tests need Chromium: apt-get install chromium (.ci/run does)")
    return found


def file_url(path: Path) -> str:
    return Path(path).resolve().as_uri()


# One browser for the whole run. Each test module that imports the fixture below gets its
# own copy of it, and a second Playwright driver cannot start in the thread of the first
# ("Sync API inside the asyncio loop"): so every copy shares the one launched here.
_SHARED: dict = {}


def _stop() -> None:
    _SHARED.pop("browser").close()
    _SHARED.pop("driver").stop()


@pytest.fixture(scope="session")
def browser():
    if "browser" not in _SHARED:
        from playwright.sync_api import sync_playwright
        _SHARED["driver"] = sync_playwright().start()
        _SHARED["browser"] = _SHARED["driver"].chromium.launch(executable_path=chromium_path(),
                                                               args=CHROMIUM_ARGS)
        atexit.register(_stop)
    return _SHARED["browser"]


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.js_errors = errors  # a test asserts the page ran without script errors
    yield opened
    context.close()


_COUNT_DIFFERING_PIXELS = """async (dataUrl) => {
    const image = new Image();
    image.src = dataUrl;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    let differing = 0;
    for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i] !== pixels[0] || pixels[i + 1] !== pixels[1] || pixels[i + 2] !== pixels[2]) differing++;
    }
    return differing / (image.width * image.height);
}"""


def non_blank_fraction(page) -> float:
    """The share of the page's screenshot whose pixels differ from its top-left pixel."""
    png = page.screenshot(full_page=True)
    data_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return page.evaluate(_COUNT_DIFFERING_PIXELS, data_url)
