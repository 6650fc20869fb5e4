"""Russian clauses: what a page sentence asserts of a claim, from Slovnet's parse
(judge/russian_clauses.py). Word overlap is not support in Russian either."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.judge.embedded import EmbeddedLLMJudge, Reading, select_evidence
from citation_verifier.judge.providers import embedded_llm_judge, local_llm_installed
from citation_verifier.judge.russian_clauses import RussianParser, find, is_russian
from citation_verifier.judge.sentences import score_sentences
from citation_verifier.language import LanguageIdentifier
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.pipeline import verify
from citation_verifier.retrieve import TermsEmbedder
from citation_verifier.settings import Settings

pytestmark = pytest.mark.skipif(
    not RussianParser.available(), reason="the Russian parser (local-llm extra) is missing"
)


@pytest.fixture(scope="module")
def parser() -> RussianParser:
    return RussianParser()


def _rule(parser: RussianParser, claim: str, sentence: str) -> str | None:
    finding = find(parser, claim, [sentence])
    return None if finding is None else f"{finding.rule}:{finding.label.value}"


@pytest.mark.parametrize(
    "sentence",
    [
        "Эксперты полагают, что цены вырастут в следующем году.",
        "Министр не сказал, что цены вырастут.",
        "Все опасаются, что цены вырастут.",
        "Никто не знает, вырастут ли цены.",
        "Если цены вырастут, спрос упадёт.",
        "Возможно, цены вырастут.",
        "Говорят, будто цены вырастут.",
        "Правительство хочет, чтобы цены выросли.",
        "Цены выросли бы, если бы не субсидии.",
        "Означает ли новый закон, что цены вырастут?",
        "Правда ли, что цены вырастут?",
        "Как считают аналитики, цены вырастут.",
        "По мнению экспертов, цены вырастут.",
        "Цены, как полагают экономисты, вырастут.",
        "«Цены вырастут», - считает министр.",
    ],
)
def test_a_claim_held_only_as_a_belief_a_question_or_a_supposition_is_not_found(
    parser: RussianParser, sentence: str
) -> None:
    assert _rule(parser, "Цены вырастут.", sentence) == "commitment:not_found"


@pytest.mark.parametrize(
    "sentence",
    [
        "Жильцы пытались закрыть завод.",
        "Мэр потребовал закрыть завод.",
        "Прокуратура должна закрыть завод.",
        "Власти могут закрыть завод.",
        "Депутаты предложили закрыть завод.",
        "Власти отказались закрыть завод.",
        "Разве власти закрыли завод?",
    ],
)
def test_a_deed_only_tried_asked_for_possible_or_due_is_not_found(
    parser: RussianParser, sentence: str
) -> None:
    assert _rule(parser, "Власти закрыли завод.", sentence) == "commitment:not_found"


@pytest.mark.parametrize(
    "sentence",
    [
        "Власти смогли закрыть завод.",
        "Властям удалось закрыть завод.",
        "Стоит отметить, что власти закрыли завод.",
        "Можно сказать, что власти закрыли завод.",
    ],
)
def test_a_deed_managed_or_a_statement_introduced_by_a_modal_is_left_to_the_model(
    parser: RussianParser, sentence: str
) -> None:
    assert _rule(parser, "Власти закрыли завод.", sentence) is None


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("Он убил жену.", "Мужчина обвиняется в убийстве жены, сообщает прокуратура."),
        ("Мужчина нанес брату ножевые ранения.", "Мужчину подозревают в нанесении ранений брату."),
        ("Он похитил ребенка.", "Его задержали по подозрению в похищении ребенка."),
    ],
)
def test_a_deed_someone_is_only_accused_of_is_not_found(
    parser: RussianParser, claim: str, sentence: str
) -> None:
    assert _rule(parser, claim, sentence) == "commitment:not_found"


def test_a_deed_someone_is_found_guilty_of_is_left_to_the_model(parser: RussianParser) -> None:
    assert _rule(parser, "Он убил жену.", "Суд признал мужчину виновным в убийстве жены.") is None


@pytest.mark.parametrize(
    "sentence",
    [
        "Почему мэр ушёл в отставку?",
        "Мэр ушёл в отставку?",
        "«Мэр ушёл в отставку?» — спросил журналист.",
        "Журналист спросил: мэр ушёл в отставку?",
        "Как вы можете говорить, что мэр ушёл в отставку?",
    ],
)
def test_a_clause_inside_a_question_is_not_found(parser: RussianParser, sentence: str) -> None:
    assert _rule(parser, "Мэр ушёл в отставку.", sentence) == "commitment:not_found"


def test_a_clause_before_a_question_stays_the_pages(parser: RussianParser) -> None:
    sentence = "Мэр ушёл в отставку, но почему он ушёл?"
    assert _rule(parser, "Мэр ушёл в отставку.", sentence) is None


def test_what_one_cannot_say_is_not_found(parser: RussianParser) -> None:
    sentence = "Мы не можем сказать, что власти закрыли завод."
    assert _rule(parser, "Власти закрыли завод.", sentence) == "commitment:not_found"


@pytest.mark.parametrize(
    "sentence",
    [
        "Министр сказал, что цены вырастут.",
        "Эксперты знают, что цены вырастут.",
        "Аналитики не знали, что цены вырастут.",
        "В следующем году цены вырастут.",
        "Знаете, цены вырастут.",
        "Как сообщает ТАСС, цены вырастут.",
        "По словам министра, цены вырастут.",
        "Цены вырастут, аналитики считают это ошибкой.",
    ],
)
def test_a_claim_stated_reported_or_known_is_left_to_the_model(
    parser: RussianParser, sentence: str
) -> None:
    assert _rule(parser, "Цены вырастут.", sentence) is None


def test_a_negated_predicate_contradicts_with_the_negating_sentence_as_quote(
    parser: RussianParser,
) -> None:
    sentence = "Исследования показали, что витамин C не предотвращает простуду."
    finding = find(parser, "Витамин C предотвращает простуду.", ["Он кислый.", sentence])
    assert finding is not None and finding.rule == "negated"
    assert finding.label == Label.CONTRADICTED and finding.sentence == sentence
    claim = "Москва не является столицей Франции."
    assert _rule(parser, claim, "Москва является столицей России.") is None  # other words
    assert _rule(parser, claim, "Москва не является столицей Франции.") is None


def test_negation_elsewhere_in_the_page_does_not_outweigh_a_stated_clause(
    parser: RussianParser,
) -> None:
    sentences = ["Витамин C не лечит простуду.", "Витамин C предотвращает простуду у спортсменов."]
    assert find(parser, "Витамин C предотвращает простуду.", sentences) is None


def test_swapped_subject_and_object_are_not_found_whatever_the_word_order(
    parser: RussianParser,
) -> None:
    claim = "Петя ударил Васю."
    assert _rule(parser, claim, "Вася ударил Петю.") == "roles:not_found"
    assert _rule(parser, claim, "Петю ударил Вася.") == "roles:not_found"
    assert _rule(parser, claim, "Васю ударил Петя.") is None  # the same roles, other order


def test_a_claim_that_is_itself_a_belief_or_too_long_is_not_checked(parser: RussianParser) -> None:
    belief = "Эксперты полагают, что цены вырастут."
    assert _rule(parser, "Возможно, цены вырастут.", belief) is None
    long_claim = " ".join(["Цены вырастут"] * 30) + "."
    assert find(parser, long_claim, [belief]) is None


def test_russian_is_told_by_its_letters_from_other_cyrillic_languages() -> None:
    assert is_russian("Цены вырастут.", "Эксперты полагают, что цены вырастут.")
    assert not is_russian("Ціни зростуть.", "Експерти вважають, що ціни зростуть.")  # Ukrainian
    assert not is_russian("Prices will rise.")


def test_russian_without_the_letters_only_russian_writes_is_told_by_the_identifier() -> None:
    identify = LanguageIdentifier().best
    claim, sentence = "Средства проверит прокуратура.", "Средства должна проверить прокуратура."
    assert not is_russian(claim, sentence)  # neither ы nor э
    assert is_russian(claim, sentence, identify=identify)
    bulgarian = "Цените на хляба ще се повишат през следващата година."
    assert not is_russian(bulgarian, identify=identify)
    assert not is_russian("Prices will rise.", identify=identify)


def _reading(claim: str, text: str) -> Reading:
    scored = score_sentences(claim, split_passages(text, 400), TermsEmbedder())
    return Reading(select_evidence(scored, 300), None, 1.0, 0)


def test_the_embedded_judge_overrules_supported_only_with_the_checks_on() -> None:
    page = "Цены на хлеб обсуждали весь год. Министр не сказал, что цены вырастут."
    claim = "Цены вырастут."
    on = embedded_llm_judge(Settings(), TermsEmbedder())
    finding = on.overrule(claim, _reading(claim, page))
    assert finding is not None and finding.rule == "commitment"
    off = embedded_llm_judge(Settings(local_judge_russian_checks=False), TermsEmbedder())
    assert isinstance(off, EmbeddedLLMJudge) and off.overrule(claim, _reading(claim, page)) is None
    english = "The minister did not say that prices would rise."
    assert on.overrule("Prices will rise.", _reading("Prices will rise.", english)) is None


VITAMIN_PAGE = (
    "<!doctype html><html lang='ru'><head><title>Витамин C</title></head><body><article>"
    "<h1>Витамин C и простуда</h1>"
    "<p>Витамин C нужен организму для синтеза коллагена. Человек не может синтезировать его "
    "сам и получает его с пищей.</p>"
    "<p>Крупные исследования показали, что витамин C не предотвращает простуду у большинства "
    "людей. У спортсменов он немного сокращает её длительность.</p>"
    "</article></body></html>"
)


@pytest.mark.skipif(not local_llm_installed(Settings()), reason="the embedded LLM is missing")
@pytest.mark.timeout(900)
async def test_a_russian_claim_the_page_negates_is_not_supported(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/c": Page(VITAMIN_PAGE)})
    settings = Settings(
        allow_private_urls=True,
        judge_provider="checker",
        audit_enabled=False,
        language_judge="auto",
    )
    result = await verify("Витамин C предотвращает простуду.", [site.url("/c")], settings)
    citation = result.citations[0]
    assert citation.label != Label.SUPPORTED, citation
    assert citation.claim_language == "ru" and citation.judge is not None
    assert citation.judge.startswith("local/")


@pytest.mark.parametrize(
    "sentence",
    [
        "«Я не считаю эти выборы честными», - сказал министр в эфире.",
        "«Эти выборы я не считаю честными», - заявил министр журналистам.",
    ],
)
def test_a_quote_and_its_reporting_verb_keep_the_report_asserted(
    parser: RussianParser, sentence: str
) -> None:
    # The parse hangs "сказал" on the quote's "считаю": the report is still the page's.
    assert _rule(parser, "Министр сказал, что не считает выборы честными.", sentence) is None
