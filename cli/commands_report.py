"""`runebook report`: an HTML page with charts of one stored run (a tournament's or a
simulation's): the pairwise win-rate heatmap, score distributions, the match-length
histogram and the per-entrant table. Every chart is also a PNG beside the page.

matplotlib (extra 'plots') is imported here only, with the Agg backend: no display.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Optional

from .errors import usage_error
from .render import Out


def report(out_dir: Path, db: Optional[Path], run_id: Optional[int]) -> None:
    from . import standings as standings_of
    from .runs import open_store
    if db is not None and not db.exists():
        usage_error(f"no results store at {db}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        usage_error("report needs the 'plots' extra: pip install 'runebook[plots]'")
    with open_store(db) as store:
        run = store.run_info(run_id)
        if run is None:
            usage_error(f"the results store has no run {run_id}" if run_id is not None
                        else "the results store has no run yet: run 'runebook tournament' first")
        standings = standings_of.read(store, run)
    if standings.matches == 0:
        usage_error(f"run {run['id']} has no stored match yet")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        usage_error(f"cannot create {out_dir} ({err.strerror})")
    charts = [(name, title) for name, title, draw in CHARTS
              if _save(plt, draw, standings, out_dir / f"{name}.png")]
    page = out_dir / "index.html"
    page.write_text(_html(run, standings, charts), encoding="utf-8")
    Out().line(f"wrote {page} and {len(charts)} charts (run {run['id']}, {standings.matches} matches)")


def _save(plt, draw, standings, path: Path) -> bool:
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    try:
        if not draw(ax, standings):
            return False
        fig.tight_layout()
        fig.savefig(path)
        return True
    finally:
        plt.close(fig)


def _heatmap(ax, st) -> bool:
    n = len(st.entrants)
    if not any(st.games[i][j] for i in range(n) for j in range(n)):
        return False
    grid = [[st.pair_rate(i, j) if st.games[i][j] else float("nan") for j in range(n)] for i in range(n)]
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    ax.figure.colorbar(image, ax=ax, label="win rate of the row against the column")
    ax.set_xticks(range(n), st.entrants, rotation=45, ha="right")
    ax.set_yticks(range(n), st.entrants)
    for i in range(n):
        for j in range(n):
            if st.games[i][j]:
                mark = "*" if st.significant(i, j) else ""
                ax.text(j, i, f"{grid[i][j]:.0%}{mark}", ha="center", va="center", fontsize=8,
                        color="white" if abs(grid[i][j] - 0.5) > 0.3 else "black")
    ax.set_title("Pairwise win rate (* the 95% interval excludes 50%)")
    return True


def _scores(ax, st) -> bool:
    for name, counts in zip(st.entrants, st.scores):
        if counts:
            values = sorted(counts)
            total = sum(counts.values())
            ax.plot(values, [counts[v] / total for v in values], marker=".", label=name)
    ax.set_xlabel("score")
    ax.set_ylabel("share of games")
    ax.set_title("Score distribution per entrant")
    ax.legend(fontsize=8)
    return True


def _lengths(ax, st) -> bool:
    values = sorted(st.lengths)
    ax.bar(values, [st.lengths[v] for v in values], width=1.0)
    ax.set_xlabel("decisions in the match")
    ax.set_ylabel("matches")
    ax.set_title("Match length")
    return True


def _win_rates(ax, st) -> bool:
    if not any(st.field_record(i)[1] for i in range(len(st.entrants))):
        return False
    rates = [st.field_rate(i) for i in range(len(st.entrants))]
    cis = [st.field_ci(i) for i in range(len(st.entrants))]
    # max(0, ...): at 0% or 100% rounding may put a bound a hair inside the rate.
    errors = [[max(0.0, r - lo) for r, (lo, _) in zip(rates, cis)], [max(0.0, hi - r) for r, (_, hi) in zip(rates, cis)]]
    ax.bar(st.entrants, rates, yerr=errors, capsize=4)
    ax.axhline(0.5, color="grey", linestyle="--")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate against the field (95% interval)")
    ax.set_title("Win rate per entrant")
    ax.tick_params(axis="x", rotation=45)
    return True


# (file name, title, how to draw it): a chart that has nothing to show is left out.
CHARTS = [
    ("win_rates", "Win rate per entrant", _win_rates),
    ("heatmap", "Pairwise win rates", _heatmap),
    ("scores", "Score distributions", _scores),
    ("lengths", "Match lengths", _lengths),
]


def _html(run: dict, st, charts: list) -> str:
    e = html.escape
    rows = []
    for r in sorted(st.to_json()["entrants"], key=lambda r: -r["win_rate"]):
        if not r["games"]:
            rows.append(f"<tr><td>{e(r['entrant'])}</td><td colspan=5>no match yet</td></tr>")
            continue
        lo, hi = r["win_rate_ci95"]
        rating = "" if r["rating"] is None else f"{r['rating']:+.0f}"
        rows.append(f"<tr><td>{e(r['entrant'])}</td><td>{r['win_rate']:.1%}{' *' if r['significant'] else ''}</td>"
                    f"<td>{lo:.1%} to {hi:.1%}</td><td>{r['games']}</td><td>{rating}</td>"
                    f"<td>{r['mean_score']:.2f} ({r['mean_score_ci95'][0]:.2f} to {r['mean_score_ci95'][1]:.2f})</td></tr>")
    figures = "\n".join(f'<figure><img src="{name}.png" alt="{e(title)}"><figcaption>{e(title)}</figcaption></figure>'
                        for name, title in charts)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>runebook report: {e(run['pack'])} run {run['id']}</title>
<style>body{{font-family:sans-serif;margin:2em;background:#fff;color:#222}}
table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:4px 8px;text-align:right}}
td:first-child{{text-align:left}}figure{{display:inline-block;margin:1em}}</style></head>
<body><h1>{e(run['pack'])}: {e(run['command'])} run {run['id']}</h1>
<p>{st.matches} matches, seeds {run['first_seed']} to {run['first_seed'] + run['games'] - 1} per setup;
pack hash <code>{e(run['pack_hash'][:12])}</code>, engine {e(run['engine_version'])}, started {e(run['created'])} UTC.</p>
<table><tr><th>entrant</th><th>win rate</th><th>95% interval</th><th>games</th><th>rating</th><th>mean score (95%)</th></tr>
{"".join(rows)}</table>
<p>* significantly different from 50% against the field (its Wilson 95% interval excludes 50%).
Ratings: Bradley-Terry on the Elo scale, centred on 0.</p>
{figures}
</body></html>
"""
