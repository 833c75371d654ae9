"""Scoped tokens need no engine support: tests/packs/tokens writes round-scoped and
activation-scoped tokens, stacking with negative totals as zero, prohibitions first and
non-stacking tokens in the language as it is (docs/language.md, "Scoped tokens"), and its
card tests hold on both engines."""
from __future__ import annotations

from pathlib import Path

import pytest

from runebook.cli.cardtests import run_card_tests

PACK = Path(__file__).resolve().parent / "packs" / "tokens"


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.mark.parametrize("engine", ["fast", "interp"])
def test_scoped_token_rules_hold(engine):
    results, diags = run_card_tests([str(PACK)], engine=engine)
    assert not diags and len(results) == 7
    assert all(r.ok for r in results), [(r.name, r.failures) for r in results]
