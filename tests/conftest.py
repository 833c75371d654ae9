"""Every test's results store is its own (RUNEBOOK_DATA): simulate and tournament never
write to the user's data folder, and no test sees another's stored matches."""
import pytest


@pytest.fixture(autouse=True)
def private_results_store(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_DATA", str(tmp_path / "data"))
