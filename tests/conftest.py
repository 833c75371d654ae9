"""Fixtures every test module shares.

The browser fixtures (tests/browser.py) are made available here, once: a test module
that imported them itself would get its own session-scoped browser, and a second
Playwright session cannot start while the first one runs."""
import pytest

from browser import browser, page  # noqa: F401  (fixtures)


@pytest.fixture(autouse=True)
def private_results_store(tmp_path, monkeypatch):
    """Every test's results store is its own (RUNEBOOK_DATA): simulate and tournament never
    write to the user's data folder, and no test sees another's stored matches."""
    monkeypatch.setenv("RUNEBOOK_DATA", str(tmp_path / "data"))
