"""``eval --articles``: article pages served on 127.0.0.1, every claim through the real
pipeline, scored per kind and claim language, with false supports and every wrong verdict."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citation_verifier.evaluate_articles import ArticleSetError, evaluate_articles, load_article_set
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode

PAGE = """<html><head><title>Bridge</title></head><body><header><nav>Home</nav></header>
<article><h1>Lindqvist Bridge opens</h1>
<p>The 4.2-kilometre Lindqvist Bridge opened to traffic on Saturday after six years of
construction.</p>
<p>Its two main towers rise 186 metres above the water.</p>
<table><tr><th>Total length</th><td>4.2 km</td></tr></table>
</article><footer>Contact</footer></body></html>"""

CLAIMS = [
    {
        "id": "b-1",
        "page": "bridge.html",
        "claim": "The Lindqvist Bridge is 5 kilometres long.",
        "label": "contradicted",
        "kind": "number_changed",
        "claim_lang": "en",
    },
    {
        "id": "b-2",
        "page": "bridge.html",
        "claim": "At night the bridge is lit by 2,000 LED lamps.",
        "label": "not_found",
        "kind": "unmentioned",
        "claim_lang": "en",
    },
]


def article_set(folder: Path, claims: list[dict[str, str]] = CLAIMS) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "bridge.html").write_text(PAGE, encoding="utf-8")
    lines = "\n".join(json.dumps(c) for c in claims)
    (folder / "claims.jsonl").write_text(lines + "\n", encoding="utf-8")
    return folder


async def test_every_claim_is_judged_on_its_served_page_and_scored(tmp_path: Path) -> None:
    scores = await evaluate_articles(article_set(tmp_path / "set"), Settings())
    assert scores.n == 2
    labels = {v.claim.id: v.label for v in scores.verdicts}
    assert labels == {"b-1": "contradicted", "b-2": "not_found"}
    assert scores.accuracy == 1.0 and scores.false_supported == (0, 2)
    assert scores.unmentioned_contradicted == (0, 1)
    assert scores.quotes_off_page == []
    assert set(scores.by_kind) == {"number_changed", "unmentioned"}
    assert scores.by_language == {"en": (2, 1.0)}


def test_a_claim_naming_a_missing_page_is_refused(tmp_path: Path) -> None:
    folder = article_set(tmp_path / "set", [{**CLAIMS[0], "page": "other.html"}])
    with pytest.raises(ArticleSetError, match=r"no page 'other\.html'"):
        load_article_set(folder)


def test_the_command_prints_figures_and_every_wrong_verdict_as_json(tmp_path: Path) -> None:
    wrong = {**CLAIMS[1], "id": "b-3", "label": "supported", "kind": "stated"}
    folder = article_set(tmp_path / "set", [*CLAIMS, wrong])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "citation_verifier",
            "eval",
            "--articles",
            str(folder),
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["n"] == 3 and payload["by_kind"]["stated"] == {"n": 1, "accuracy": 0.0}
    assert [w["id"] for w in payload["wrong"]] == ["b-3"]
    assert {"gold", "predicted", "decided_by", "quote", "detail"} <= set(payload["wrong"][0])
    # Every verdict, right or wrong, with its confidence: what calibration is read from.
    assert [v["id"] for v in payload["verdicts"]] == ["b-1", "b-2", "b-3"]
    assert all(0 <= v["confidence"] <= 1 for v in payload["verdicts"])


def test_the_command_names_a_folder_without_claims(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "eval", "--articles", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == ExitCode.INPUT
    assert "has no claims.jsonl" in done.stderr and "Traceback" not in done.stderr
