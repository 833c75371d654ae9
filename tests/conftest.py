"""Fixtures every test module may use. The browser is one per session for all modules:
registered here once (a module importing the fixtures would start a second Playwright,
which cannot run beside the first)."""
pytest_plugins = ("browser",)
