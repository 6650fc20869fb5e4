"""The eval command's data handling, metrics and resumability, on small synthetic files."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from citation_verifier.evaluate import (
    Checkpoint,
    EvalRow,
    Prediction,
    evaluate_files,
    read_rows,
    score,
    stratified_sample,
)
from citation_verifier.judge.base import exact_check_detail, exact_check_rule
from citation_verifier.models import Label
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.splits import SPLITS, split_of
from citation_verifier.terminal import ExitCode

ROWS = [
    {
        "id": "t-1",
        "claim": "Water boils at 100 degrees Celsius at sea level.",
        "label": "supported",
        "source_text": "At sea level, water boils at 100 degrees Celsius. It freezes at 0 degrees.",
    },
    {
        "id": "t-2",
        "claim": "Water boils at 50 degrees Celsius at sea level.",
        "label": "contradicted",
        "source_text": "Water boils at 100 degrees Celsius at sea level.",
    },
    {
        "id": "t-3",
        "claim": "Bananas are rich in potassium.",
        "label": "not_found",
        "source_text": "The Eiffel Tower was completed in 1889.",
    },
    {"id": "t-4", "claim": "No text here.", "label": "supported", "source_text": ""},
]


def write_dataset(path: Path, rows: list[dict[str, str]]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
        handle.write("{not json\n")
    return path


def test_rows_without_source_text_or_invalid_are_skipped(tmp_path: Path) -> None:
    rows, skipped = read_rows(write_dataset(tmp_path / "toy.jsonl.gz", ROWS))
    assert [r.id for r in rows] == ["t-1", "t-2", "t-3"]
    assert skipped == 2


def test_stratified_sample_keeps_label_shares_and_is_seeded() -> None:
    rows = [
        EvalRow("d", str(i), "c", Label.SUPPORTED if i < 75 else Label.NOT_FOUND, "t")
        for i in range(100)
    ]
    sample = stratified_sample(rows, 20, seed=1)
    assert sum(r.label == Label.SUPPORTED for r in sample) == 15
    assert [r.id for r in sample] == [r.id for r in stratified_sample(rows, 20, seed=1)]
    assert [r.id for r in sample] != [r.id for r in stratified_sample(rows, 20, seed=2)]
    assert stratified_sample(rows, None, seed=1) == rows


def test_balanced_accuracy_macro_f1_and_confusion() -> None:
    def p(gold: str, predicted: str) -> Prediction:
        return Prediction("x", gold, predicted, None, 1.0)

    preds = [
        p("supported", "supported"),
        p("supported", "not_found"),
        p("not_found", "not_found"),
        p("contradicted", "contradicted"),
        p("contradicted", "supported"),
    ]
    result = score(preds, three_way=True)
    # supported recall 1/2, rest recall 2/3 (the contradicted->supported row is a miss)
    assert abs(result.balanced_accuracy - (0.5 + 2 / 3) / 2) < 1e-9
    assert result.accuracy == 3 / 5
    assert result.confusion["contradicted"]["supported"] == 1
    f1_sup, f1_con, f1_nf = 2 * 1 / (2 + 2), 2 * 1 / (1 + 2), 2 * 1 / (2 + 1)
    assert result.macro_f1 is not None
    assert abs(result.macro_f1 - (f1_sup + f1_con + f1_nf) / 3) < 1e-9
    assert score(preds, three_way=False).macro_f1 is None


def test_scores_count_each_exact_check_that_decided_by_gold_and_predicted_label() -> None:
    preds = [
        Prediction("a", "contradicted", "contradicted", None, 1.0, "ru", "negated"),
        Prediction("b", "supported", "not_found", None, 1.0, "ru", "commitment"),
        Prediction("c", "not_found", "not_found", None, 1.0, "ru", "commitment"),
        Prediction("d", "supported", "supported", None, 1.0, "ru"),
    ]
    assert score(preds, three_way=True).as_json()["exact_checks"] == {
        "commitment": {"supported->not_found": 1, "not_found->not_found": 1},
        "negated": {"contradicted->contradicted": 1},
    }
    assert exact_check_rule(exact_check_detail("negated")) == "negated"
    assert exact_check_rule("internal error while judging: ValueError") is None


def test_checkpoint_survives_a_cut_line(tmp_path: Path) -> None:
    checkpoint = Checkpoint(tmp_path / "ck.jsonl")
    checkpoint.add("k1", Prediction("a", "supported", "supported", None, 0.1))
    with (tmp_path / "ck.jsonl").open("a") as handle:
        handle.write('{"key": "k2", "predic')
    assert set(Checkpoint(tmp_path / "ck.jsonl").done) == {"k1"}


async def test_evaluation_scores_each_dataset_and_resumes(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    data = write_dataset(tmp_path / "toy.jsonl.gz", ROWS)
    settings = Settings()
    first = await evaluate_files(
        [data], settings=settings, split=None, checkpoint_dir=tmp_path / "ck"
    )
    scores = first["toy"]
    assert scores.n == 3 and scores.skipped == 2
    assert scores.accuracy == 1.0 and scores.balanced_accuracy == 1.0
    lines = next((tmp_path / "ck").glob("*.jsonl")).read_text().splitlines()
    assert len(lines) == 3
    again = await evaluate_files(
        [data], settings=settings, split=None, checkpoint_dir=tmp_path / "ck"
    )
    assert again["toy"].confusion == scores.confusion
    assert len(next((tmp_path / "ck").glob("*.jsonl")).read_text().splitlines()) == 3


async def test_via_http_runs_fetch_and_extraction(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "toy.jsonl.gz", ROWS)
    result = await evaluate_files(
        [data], settings=Settings(), via_http=True, split=None, checkpoint_dir=tmp_path
    )
    assert result["toy"].confusion["supported"]["supported"] == 1
    assert result["toy"].confusion["contradicted"]["contradicted"] == 1


def test_eval_command_prints_json(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "toy.jsonl.gz", ROWS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "citation_verifier",
            "eval",
            str(data),
            "--json",
            "--quiet",
            "--limit",
            "2",
            "--split",
            "all",
            "--checkpoint-dir",
            str(tmp_path / "ck"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    toy = payload["datasets"]["toy"]
    assert toy["n"] == 2
    assert {
        "n",
        "balanced_accuracy",
        "accuracy",
        "macro_f1",
        "confusion",
        "sec_per_citation",
        "median_sec_per_citation",
        "p90_sec_per_citation",
    } <= set(toy)
    assert payload["split"] == "all" and payload["peak_rss_mib"] > 0


def test_eval_command_reports_missing_file_clearly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "eval", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (
        done.returncode == ExitCode.INPUT
        and "no such file" in done.stderr
        and "Traceback" not in done.stderr
    )


def test_eval_command_prints_a_markdown_table(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "toy.jsonl.gz", ROWS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "citation_verifier",
            "eval",
            str(data),
            "--markdown",
            "--quiet",
            "--split",
            "all",
            "--checkpoint-dir",
            str(tmp_path / "ck"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("| dataset | language | n | balanced acc.")
    assert lines[2].startswith("| toy | en | 3 | 1.000 | 1.000 | 1.000 | 0 | 0 |")


def test_eval_scores_only_the_rows_of_the_chosen_split(tmp_path: Path) -> None:
    rows = [
        {"id": f"r{i}", "claim": "c", "label": "supported", "source_text": f"source {i}"}
        for i in range(40)
    ]
    data = write_dataset(tmp_path / "wice.jsonl.gz", rows)
    expected = {
        part: {f"r{i}" for i in range(40) if split_of("wice", f"source {i}") == part}
        for part in SPLITS
    }
    assert all(expected.values())  # 40 sources reach every part of a licensed set
    for part in SPLITS:
        got, _ = read_rows(data, part)
        assert {r.id for r in got} == expected[part]
    assert len(read_rows(data)[0]) == 40


def test_eval_command_refuses_an_unknown_split(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "toy.jsonl.gz", ROWS)
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "eval", str(data), "--split", "dev"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "--split" in done.stderr and "Traceback" not in done.stderr


def test_eval_says_when_it_reuses_a_checkpoint_and_fresh_starts_again(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from citation_verifier.cli import app

    data = write_dataset(tmp_path / "toy.jsonl.gz", ROWS)
    args = ["eval", str(data), "--json", "--quiet", "--split", "all"]
    args += ["--limit", "2", "--checkpoint-dir", str(tmp_path / "ck")]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "reusing" not in first.stderr
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "toy: reusing 2 judged row(s) from " in again.stderr
    assert "--fresh to judge them again" in again.stderr
    assert json.loads(again.stdout)["datasets"]["toy"]["n"] == 2
    fresh = CliRunner().invoke(app, [*args, "--fresh"])
    assert fresh.exit_code == 0, fresh.output
    assert "reusing" not in fresh.stderr
