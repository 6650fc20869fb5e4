"""The quote rules, each on its own: what the quote of a verdict must hold of the claim."""

from __future__ import annotations

from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.quote_rules import (
    OWN_CHECKS,
    QUOTE_RULES,
    QuoteContext,
    about,
    claim_names,
    comparison,
    conflict,
    future,
    hedge,
    negation,
    roles,
    rule_of,
    rule_on,
    rules_for,
    speaker,
    values,
)


def context(
    claim: str, label: Label, quote: str | None, page: str, language: str = "en"
) -> QuoteContext:
    passages = split_passages(page, 200, language)
    return QuoteContext(claim, label, quote, passages, language, language)


def test_rules_are_tried_in_one_documented_order() -> None:
    assert [name for name, _ in QUOTE_RULES] == [
        "conflict",
        "roles",
        "about",
        "speaker",
        "hedge",
        "future",
        "comparison",
        "negation",
        "values",
    ]


def test_a_quote_about_something_else_is_no_evidence() -> None:
    page = "Строительство моста обошлось в 2 млрд рублей."
    ruling = about(context("Мэр города — Игорь Белов.", Label.SUPPORTED, page, page, "ru"))
    assert ruling is not None and ruling.label == Label.NOT_FOUND
    ruling = about(context("Мэр города — Игорь Белов.", Label.CONTRADICTED, page, page, "ru"))
    assert ruling is not None and ruling.label == Label.NOT_FOUND


def test_a_contradiction_needs_a_quote_about_the_claim() -> None:
    claim = "La carrera se disputó con una temperatura de 12 grados."
    elsewhere = "En categoría femenina, la etíope Tigist Alemu se impuso con 2:21:08."
    ruling = about(context(claim, Label.CONTRADICTED, elsewhere, elsewhere, "es"))
    assert ruling is not None and ruling.label == Label.NOT_FOUND
    about_it = "La carrera se disputó con una temperatura de 4 grados."
    assert about(context(claim, Label.CONTRADICTED, about_it, about_it, "es")) is None


def test_about_is_not_asked_across_languages() -> None:
    page = "The bridge cost 2 billion roubles."
    passages = split_passages(page, 200, "en")
    ruling = about(
        QuoteContext("Мэр города — Игорь Белов.", Label.SUPPORTED, page, passages, "ru", "en")
    )
    assert ruling is None


def test_a_claim_value_no_passage_states_is_not_supported() -> None:
    page = "Die Bürgerinitiative prüft eine Klage. Sie hat 300 Mitglieder."
    claim = "Die Bürgerinitiative hat bereits 20.000 Euro an Spenden gesammelt."
    ruling = values(
        context(claim, Label.SUPPORTED, "Die Bürgerinitiative prüft eine Klage.", page, "de")
    )
    assert ruling is not None and "20.000 Euro" in ruling.why


def test_a_value_the_page_states_elsewhere_passes_values() -> None:
    page = "Der Brand wuchs über Nacht. Kosten der Brandbekämpfung bisher\n21,6 Mio. Dollar"
    claim = "Die Kosten der Brandbekämpfung liegen bei 21,6 Millionen Dollar."
    quote = "Der Brand wuchs über Nacht."
    assert values(context(claim, Label.SUPPORTED, quote, page, "de")) is None


def test_english_claims_values_are_left_to_the_checkers_own_rule() -> None:
    page = "The fire grew overnight."
    claim = "The firefighting cost has reached $21.6 million."
    assert values(context(claim, Label.SUPPORTED, page, page)) is None


def test_conflict_quotes_the_sentence_that_gives_another_date() -> None:
    page = "La 15.ª edición se celebrará el 30 de noviembre de 2025, anunció el alcalde."
    claim = "La próxima edición se celebrará el 23 de noviembre de 2025."
    ruling = conflict(context(claim, Label.NOT_FOUND, None, page, "es"))
    assert ruling is not None and ruling.label == Label.CONTRADICTED
    assert ruling.quote == page


def test_the_deciding_rule_is_read_back_from_the_detail() -> None:
    page = "Der Jahresausweis kostet 20 Euro."
    ruling = rule_on(
        context("Die Sanierung kostete 20 Millionen Euro.", Label.SUPPORTED, page, page, "de")
    )
    assert ruling is not None
    assert rule_of(f"quote rule: {ruling.rule}: {ruling.why}") == "values"
    assert rule_of("exact check: verbatim") is None


def test_the_checkers_english_verdicts_get_only_the_rules_no_exact_check_reads() -> None:
    page = "The committee met again on Tuesday."
    rules = rules_for("checker/minilm-l6-checker", english=True)
    assert rules == OWN_CHECKS
    ruling = rule_on(context("Smith won the race.", Label.SUPPORTED, page, page), rules)
    assert ruling is None
    assert rules_for("checker/minilm-l6-checker", english=False) is None
    assert rules_for("checker/minilm-l6-checker+local/qwen", english=True) is None
    assert rules_for("local/qwen2.5-coder-1.5b-instruct", english=True) is None
    assert rule_on(context("Smith won the race.", Label.SUPPORTED, page, page)) is not None


def test_words_given_to_one_person_are_not_supported_by_a_quote_giving_them_to_another() -> None:
    page = (
        'Rents in the old town rose by a fifth. "The market has simply run out of flats," '
        "said Maria Lund, who chairs the tenants' association."
    )
    quote = page.split(". ", 1)[1]
    claim = "Councillor Peter Wahl said the market has simply run out of flats."
    ruling = speaker(context(claim, Label.SUPPORTED, quote, page))
    assert ruling is not None and ruling.label == Label.NOT_FOUND
    assert "Peter Wahl" in ruling.why and "Maria Lund" in ruling.why
    right = "Maria Lund said the market has simply run out of flats."
    assert speaker(context(right, Label.SUPPORTED, quote, page)) is None


def test_speaker_reads_german_names_after_a_title_or_a_noun() -> None:
    page = "„Wir sind sehr zufrieden“, sagte Kämmerer Dr. Jonas Reiter am Montag."
    claim = "Bürgermeisterin Dr. Eva Brandl sagte, man sei sehr zufrieden."
    ruling = speaker(context(claim, Label.SUPPORTED, page, page, "de"))
    assert ruling is not None and "Eva Brandl" in ruling.why


def test_speaker_asks_only_of_claims_that_report_someones_words() -> None:
    page = "The museum, designed by Anna Berg, opened in 2019."
    claim = "The museum designed by Karl Ott opened in 2019."  # a role, not words: other rules
    assert speaker(context(claim, Label.SUPPORTED, page, page)) is None
    said = "Karl Ott said the museum opened in 2019."
    assert speaker(context(said, Label.NOT_FOUND, None, page)) is None  # only supported verdicts


def test_claim_names_leave_out_openings_titles_values_and_weekdays() -> None:
    assert claim_names("Dr. Helga Moss said on Monday that the X5 line opens in May 2026.") == [
        "Helga",
        "Moss",
        "X5",
    ]
    # An opening word is a name when the page writes it capitalised inside a sentence.
    page = split_passages("The contract went to Ostrava Rail last year.", 200, "en")
    assert claim_names("Ostrava Rail won the contract.", "en", page) == ["Ostrava", "Rail"]
    assert claim_names("Railways won the contract.", "en", page) == []
    assert claim_names("Der Bau der Brücke begann 2019.", "de") == []


def test_a_fact_is_not_supported_by_a_quote_that_states_it_only_as_possible() -> None:
    for claim, quote, language in (
        (
            "Several UK universities will fall in next year's rankings.",
            "Meridian warns that several UK universities could lose ground next year.",
            "en",
        ),
        (
            "The fire was sparked by a downed power line near the campground.",
            "Investigators are examining whether a downed power line near the campground "
            "may have sparked it.",
            "en",
        ),
        (
            "El maratón obtendrá el próximo año la etiqueta Oro.",
            "Según los organizadores, el maratón podría obtener el próximo año la etiqueta Oro.",
            "es",
        ),
        (
            "Die Mine wird 2028 eröffnet.",
            "Die Mine könnte frühestens 2028 eröffnet werden.",
            "de",
        ),
    ):
        ruling = hedge(context(claim, Label.SUPPORTED, quote, quote, language))
        assert ruling is not None and ruling.label == Label.NOT_FOUND, claim
        assert ruling.quote is None and "possible" in ruling.why


def test_hedge_leaves_a_hedged_claim_a_denial_a_month_and_a_word_stated_outright() -> None:
    for claim, quote in (
        ("The drug may reduce the risk.", "The drug may reduce the risk of stroke."),
        ("The study suggests the drug works.", "The drug likely works in older patients."),
        ("Members cannot be dismissed.", "Members may not be dismissed for one year."),
        ("The bridge opened in May 2024.", "The bridge opened in May 2024 after delays."),
        (  # stated outright first: the hedge after it adds a guess about something else
            "The bridge opened in 2024.",
            "The bridge opened in 2024; a second bridge could open in 2030.",
        ),
    ):
        assert hedge(context(claim, Label.SUPPORTED, quote, quote)) is None, claim


def test_a_quote_comparing_the_other_way_contradicts_in_every_language() -> None:
    for claim, quote, language in (
        (
            "Das Erz ist lithiumreicher als die Lagerstätten in Australien.",
            "Das Erz enthält 0,35 Prozent Lithiumoxid und ist damit ärmer als die "
            "Lagerstätten in Australien.",
            "de",
        ),
        (
            "В 2024 г. банки выдали больше ипотечных кредитов, чем годом ранее.",
            "В 2024 г. банки выдали 1,2 млн ипотечных кредитов — на четверть меньше, чем "
            "годом ранее.",
            "ru",
        ),
        (
            "Pereira's fee is lower than the £31 million Westbury paid for Dele Mensah.",
            "The fee comfortably exceeds the £31 million Westbury paid for Dele Mensah.",
            "en",
        ),
    ):
        ruling = comparison(context(claim, Label.SUPPORTED, quote, quote, language))
        assert ruling is not None and ruling.label == Label.CONTRADICTED, claim
        assert ruling.quote == quote


def test_comparison_leaves_a_quote_that_also_compares_the_claims_way_or_about_else() -> None:
    claim = "The new line is longer than the old one."
    for quote in (
        "The new line is longer than the old one, though shorter than the planned third.",
        "Ticket queues were shorter this year.",  # about something else
        "The old line is shorter than the new one.",  # the same, the other way round
    ):
        assert comparison(context(claim, Label.SUPPORTED, quote, quote)) is None, quote


def test_conflict_reads_another_rank_and_a_table_row_naming_the_claims_subject() -> None:
    page = (
        "The University of Ardmore has risen two places to second in the Meridian World "
        "University Rankings 2025. 5 Senkai University Japan 91.7 7"
    )
    third = "The University of Ardmore is ranked third in the Meridian World University Rankings."
    ruling = conflict(context(third, Label.SUPPORTED, page, page))
    assert ruling is not None and ruling.label == Label.CONTRADICTED
    assert "'second'" in ruling.why
    senkai = (
        "Senkai University moved up from seventh place to fifth in the Meridian World "
        "University Rankings."
    )
    assert conflict(context(senkai, Label.SUPPORTED, page, page)) is None


def test_a_quote_denying_the_claim_contradicts_in_every_language() -> None:
    for claim, quote, language in (
        (
            "The VB-214 trial results have already been peer reviewed.",
            "The results were released in a statement and have not yet been peer reviewed.",
            "en",
        ),
        (
            "Университет раскрыл точное место находки клада.",
            "Точное место находки клада пока не раскрывается.",
            "ru",
        ),
        (
            "Die Genehmigung gilt für den Tagebau.",
            "Die Genehmigung gilt nicht für den Tagebau.",
            "de",
        ),
    ):
        ruling = negation(context(claim, Label.SUPPORTED, quote, quote, language))
        assert ruling is not None and ruling.label == Label.CONTRADICTED, claim
        assert ruling.quote == quote


def test_negation_leaves_a_denying_claim_not_only_and_a_word_also_stated_outright() -> None:
    for claim, quote in (
        ("The drug does not cure the disease.", "The drug does not cure the disease."),
        ("The drug eases pain and fever.", "The drug not only eases pain but also fever."),
        ("The bridge carries trains.", "The bridge carries trains, but no cars."),
        (  # "did not know that X" does not deny X
            "Norvik Energy opened an office in Leeds.",
            "David Okafor did not know that Norvik Energy had opened an office in Leeds.",
        ),
    ):
        assert negation(context(claim, Label.SUPPORTED, quote, quote)) is None, claim
    for claim, quote in (  # a function word, another clause
        ("Мы по сути равнодушны.", "Мы твердим «Нравится, не нравится», а по сути равнодушны."),
        (
            "В метро люди заявляют о взрывном устройстве.",
            "В метро люди, не задумываясь, заявляют о взрывном устройстве в сумке.",
        ),
    ):
        assert negation(context(claim, Label.SUPPORTED, quote, quote, "ru")) is None, claim


def test_a_comparison_of_the_claims_two_things_with_their_places_swapped_contradicts() -> None:
    for claim, quote in (
        (
            "VB-214 gave stronger protection to people aged 75 and over than to those aged 60 "
            "to 74.",
            "Protection was noticeably stronger in participants aged 60 to 74, at 68 per cent, "
            "than in those aged 75 and over, at 49 per cent.",
        ),
        (
            "The Novu Arc 5 produces cleaner zoom shots in low light than the Orra Nine Pro.",
            "At night, the camera is competitive with the Orra Nine Pro, though the Orra still "
            "produces cleaner zoom shots in low light.",
        ),
        ("Gothenburg is larger than Kraków.", "Kraków is larger than Gothenburg."),
    ):
        ruling = comparison(context(claim, Label.SUPPORTED, quote, quote))
        assert ruling is not None and ruling.label == Label.CONTRADICTED, claim
        assert "other way round" in ruling.why


def test_a_converse_or_the_same_comparison_with_more_is_no_swap() -> None:
    claim = "Gothenburg is larger than Kraków."
    for quote in (
        "Kraków is smaller than Gothenburg.",  # the same statement
        "Gothenburg is larger than Kraków, but smaller than Berlin.",
    ):
        assert comparison(context(claim, Label.SUPPORTED, quote, quote)) is None, quote


def test_roles_given_to_the_other_doer_contradict_in_every_language() -> None:
    for claim, page, language, quoted in (
        (
            "The American Red Cross issued the evacuation orders, while the Calder County "
            "Sheriff's Office opened a shelter at Millbrook High School.",
            "About 4,200 residents remain under mandatory evacuation orders issued by the "
            "Calder County Sheriff's Office. The American Red Cross has opened a shelter at "
            "Millbrook High School, where about 300 people spent Saturday night.",
            "en",
            "issued by the Calder County Sheriff's Office.",
        ),
        (
            "In der Uraufführung spielt Jonas Feld die Titelrolle, während Lea Brandt den Bruder "
            "Anton verkörpert.",
            "Die Titelrolle der Marthe Grieß spielt Lea Brandt, ihren jüngeren Bruder Anton "
            "verkörpert Jonas Feld.",
            "de",
            "verkörpert Jonas Feld.",
        ),
        (
            "Игорь Панов — аналитик компании «Волга-Инвест», а Мария Ефимова — главный "
            "экономист банка «Балтийский кредит».",
            "По оценке главного экономиста банка «Балтийский кредит» Игоря Панова, ставки могут "
            "снизиться. Аналитик инвестиционной компании «Волга-Инвест» Мария Ефимова решение "
            "регулятора раскритиковала.",
            "ru",
            "Мария Ефимова решение регулятора раскритиковала.",
        ),
    ):
        for label in (Label.SUPPORTED, Label.NOT_FOUND):
            ruling = roles(
                context(claim, label, page if label == Label.SUPPORTED else None, page, language)
            )
            assert ruling is not None and ruling.label == Label.CONTRADICTED, (claim, label)
            assert ruling.quote is not None and ruling.quote.endswith(quoted)


def test_roles_leave_each_doer_with_its_own_part_or_a_claim_of_one_doer() -> None:
    page = (
        "The route will be built by Halden Rail Engineering. Corvia Transit, which already "
        "operates two tram lines, will run services on the new section."
    )
    for claim in (
        "Halden Rail Engineering will build the route, and Corvia Transit will run services.",
        "Corvia Transit will run services on the new section.",
        "Halden Rail Engineering and Corvia Transit will build the route.",
    ):
        assert roles(context(claim, Label.SUPPORTED, page, page)) is None, claim


def test_conflict_reads_another_count_of_the_same_thing() -> None:
    for claim, page, language in (
        (
            "Помимо монет, в горшке нашли 71 фрагмент серебряных украшений.",
            "Кроме монет, в горшке находились 17 фрагментов серебряных украшений.",
            "ru",
        ),
        (
            "Das Bergwerk soll 50 Jahre lang betrieben werden.",
            "Das Bergwerk soll 30 Jahre lang betrieben werden.",
            "de",
        ),
    ):
        ruling = conflict(context(claim, Label.NOT_FOUND, None, page, language))
        assert ruling is not None and ruling.label == Label.CONTRADICTED, claim


def test_plain_numbers_counting_other_things_do_not_conflict() -> None:
    claim = "The museum shows 40 paintings by the artist."
    page = "The museum, open for 12 years, shows paintings by the artist in 3 rooms."
    assert conflict(context(claim, Label.NOT_FOUND, None, page)) is None


def test_future_reads_a_hedge_only_against_a_claim_of_what_will_happen() -> None:
    quote = "Meridian warns that several UK universities could lose ground next year."
    will = "Several UK universities will lose ground next year."
    ruling = future(context(will, Label.SUPPORTED, quote, quote))
    assert ruling is not None and ruling.rule == "future" and ruling.label == Label.NOT_FOUND
    advice = "Several UK universities can lose ground next year."
    assert future(context(advice, Label.SUPPORTED, quote, quote)) is None
    earliest = "Earliest opening Spring 2028"
    opens = "The extended line will open in spring 2028."
    assert future(context(opens, Label.SUPPORTED, earliest, earliest)) is not None


def test_conflict_takes_a_place_from_a_sentence_about_the_claim_only() -> None:
    page = (
        "It was the first convincing evidence of the trend. Pereira has scored 17 goals this "
        "season, making him the second-highest scorer in the Portuguese top flight."
    )
    claim = "Luan Pereira is the top scorer in the Portuguese top flight this season."
    ruling = conflict(context(claim, Label.NOT_FOUND, None, page))
    assert ruling is not None and ruling.label == Label.CONTRADICTED
    assert "'second'" in ruling.why


def test_a_number_of_a_range_conflicts_with_no_single_count() -> None:
    claim = "Some studies estimate the serial interval at 4 to 4.5 days."
    page = "The median serial interval was estimated at 4.6 days in the studies."
    assert conflict(context(claim, Label.NOT_FOUND, None, page)) is None


def test_roles_read_a_name_far_into_a_clause_as_no_doer() -> None:
    claim = (
        "Wrestling first showed up in the Olympics in 1896, when Greco-Roman wrestling was "
        "introduced as an Olympic discipline."
    )
    page = (
        "When the first modern Olympic Games were held in Athens in 1896, Greco-Roman "
        "wrestling was introduced as an Olympic discipline."
    )
    assert roles(context(claim, Label.SUPPORTED, page, page)) is None


def test_figures_that_compare_the_claims_two_things_the_other_way_contradict() -> None:
    page = (
        "Council modelling suggests a tram journey from Castle Street to the airport will take "
        "24 minutes, compared with 41 minutes on the current X7 bus."
    )
    quote = "Council modelling suggests a tram journey from Castle Street to the airport."
    longer = "A tram journey from Castle Street will take longer than the current X7 bus."
    ruling = comparison(context(longer, Label.SUPPORTED, quote, page))
    assert ruling is not None and ruling.label == Label.CONTRADICTED and ruling.quote == page
    shorter = "A tram journey from Castle Street will take less time than the current X7 bus."
    assert comparison(context(shorter, Label.SUPPORTED, quote, page)) is None


def test_a_round_number_is_no_other_count_of_the_figure_it_rounds() -> None:
    claim = "Mass screening found two positive cases out of 8,000 tests so far."
    page = "Mass screening found two positive cases out of 8,276 tests so far."
    assert conflict(context(claim, Label.NOT_FOUND, None, page)) is None
