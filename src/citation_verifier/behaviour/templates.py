"""Minimum-functionality cases from templates: an evidence sentence set in a short page of
distractor sentences, a claim, the expected label.

Every category has templates in both halves and positive controls (claims the page does
state), so a judge cannot pass a category by never saying supported. Filler words are split
into halves too: no name, place or organisation of a measured case is ever trained on."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from citation_verifier.behaviour.cases import Case, Half
from citation_verifier.models import Label

S, C, N = Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND


@dataclass(frozen=True)
class Template:
    """``evidence`` and ``claim`` with ``{slots}`` filled from the half's filler words."""

    id: str
    category: str
    half: Half
    evidence: str
    claim: str
    expected: Label


_T = Template
TEMPLATES: tuple[Template, ...] = (
    # verbatim
    _T("verb-born", "verbatim", "measure", "{p1} was born in {c1} in {y}.", "=", S),
    _T("verb-restored", "verbatim", "measure", "The {thing} in {c1} were restored in {y}.", "=", S),
    _T("verb-office", "verbatim", "train", "{o1} opened its first office in {c1} in {y}.", "=", S),
    _T("verb-director", "verbatim", "train", "{p1} led {o1} for {small} years.", "=", S),
    # paraphrase
    _T(
        "para-founded",
        "paraphrase",
        "measure",
        "{p1} founded {o1} in {y}.",
        "{o1} was founded by {p1} in {y}.",
        S,
    ),
    _T(
        "para-moved",
        "paraphrase",
        "measure",
        "In {y}, {p1} moved from {c1} to {c2}.",
        "{p1} moved from {c1} to {c2} in {y}.",
        S,
    ),
    _T(
        "para-wrote",
        "paraphrase",
        "measure",
        "{p1} wrote the report on the {thing} of {c1}.",
        "The report on the {thing} of {c1} was written by {p1}.",
        S,
    ),
    _T(
        "para-bought",
        "paraphrase",
        "train",
        "{o1} bought {o2} in {y}.",
        "{o2} was bought by {o1} in {y}.",
        S,
    ),
    _T(
        "para-prize",
        "paraphrase",
        "train",
        "{p1} won the prize in {y}.",
        "The prize was won by {p1} in {y}.",
        S,
    ),
    # negation
    _T(
        "neg-attend",
        "negation",
        "measure",
        "{p1} did not attend the summit in {c1}.",
        "{p1} attended the summit in {c1}.",
        C,
    ),
    _T(
        "neg-attend-rev",
        "negation",
        "measure",
        "{p1} attended the summit in {c1}.",
        "{p1} did not attend the summit in {c1}.",
        C,
    ),
    _T(
        "neg-vaccine",
        "negation",
        "measure",
        "The new vaccine does not prevent {disease}.",
        "The new vaccine prevents {disease}.",
        C,
    ),
    _T(
        "neg-control",
        "negation",
        "measure",
        "{p1} did not attend the summit in {c1}.",
        "{p1} was not at the summit in {c1}.",
        S,
    ),
    _T(
        "neg-protected",
        "negation",
        "train",
        "The {thing} in {c1} are not protected by law.",
        "The {thing} in {c1} are protected by law.",
        C,
    ),
    _T(
        "neg-profit",
        "negation",
        "train",
        "{o1} has never made a profit.",
        "{o1} has made a profit.",
        C,
    ),
    _T(
        "neg-control-t",
        "negation",
        "train",
        "{o1} has never made a profit.",
        "{o1} has not made a profit.",
        S,
    ),
    # negative verbs
    _T(
        "nv-denied",
        "negative_verbs",
        "measure",
        "{p1} denied meeting {p2} in {c1}.",
        "{p1} met {p2} in {c1}.",
        C,
    ),
    _T(
        "nv-failed",
        "negative_verbs",
        "measure",
        "{o1} failed to reach its sales target in {y}.",
        "{o1} reached its sales target in {y}.",
        C,
    ),
    _T(
        "nv-ruled",
        "negative_verbs",
        "measure",
        "Investigators ruled out arson as the cause of the fire in {c1}.",
        "Arson caused the fire in {c1}.",
        C,
    ),
    _T(
        "nv-control",
        "negative_verbs",
        "measure",
        "{o1} failed to reach its sales target in {y}.",
        "{o1} did not reach its sales target in {y}.",
        S,
    ),
    _T(
        "nv-refused",
        "negative_verbs",
        "train",
        "{p1} refused to sign the agreement with {o1}.",
        "{p1} signed the agreement with {o1}.",
        C,
    ),
    _T(
        "nv-rejected",
        "negative_verbs",
        "train",
        "The court rejected the claim that {o1} broke the law.",
        "{o1} broke the law.",
        C,
    ),
    _T(
        "nv-control-t",
        "negative_verbs",
        "train",
        "{p1} refused to sign the agreement with {o1}.",
        "{p1} did not sign the agreement with {o1}.",
        S,
    ),
    # antonyms
    _T(
        "ant-sales",
        "antonyms",
        "measure",
        "Sales at {o1} rose by {pct} percent in {y}.",
        "Sales at {o1} fell by {pct} percent in {y}.",
        C,
    ),
    _T(
        "ant-election",
        "antonyms",
        "measure",
        "{p1} won the election in {c1} in {y}.",
        "{p1} lost the election in {c1} in {y}.",
        C,
    ),
    _T(
        "ant-museum",
        "antonyms",
        "measure",
        "The museum in {c1} is open on Mondays.",
        "The museum in {c1} is closed on Mondays.",
        C,
    ),
    _T(
        "ant-control",
        "antonyms",
        "measure",
        "Sales at {o1} rose by {pct} percent in {y}.",
        "Sales at {o1} increased by {pct} percent in {y}.",
        S,
    ),
    _T(
        "ant-population",
        "antonyms",
        "train",
        "The population of {c1} increased after {y}.",
        "The population of {c1} decreased after {y}.",
        C,
    ),
    _T(
        "ant-river",
        "antonyms",
        "train",
        "The river in {c1} is shallow near the bridge.",
        "The river in {c1} is deep near the bridge.",
        C,
    ),
    _T(
        "ant-control-t",
        "antonyms",
        "train",
        "The population of {c1} increased after {y}.",
        "The population of {c1} grew after {y}.",
        S,
    ),
    # numbers
    _T(
        "num-value",
        "numbers",
        "measure",
        "{o1} employs {n} people in {c1}.",
        "{o1} employs {n2} people in {c1}.",
        C,
    ),
    _T(
        "num-separator",
        "numbers",
        "measure",
        "{o1} employs {n} people in {c1}.",
        "{o1} employs {nplain} people in {c1}.",
        S,
    ),
    _T(
        "num-percent",
        "numbers",
        "measure",
        "Unemployment in {c1} reached {pct} percent in {y}.",
        "Unemployment in {c1} reached {pct}% in {y}.",
        S,
    ),
    _T(
        "num-percent-value",
        "numbers",
        "measure",
        "Unemployment in {c1} reached {pct} percent in {y}.",
        "Unemployment in {c1} reached {pct2}% in {y}.",
        C,
    ),
    _T(
        "num-unit",
        "numbers",
        "measure",
        "The tower in {c1} is {h} metres tall.",
        "The tower in {c1} is {h} feet tall.",
        C,
    ),
    _T(
        "num-range",
        "numbers",
        "measure",
        "Tickets in {c1} cost between {a} and {b} dollars.",
        "Tickets in {c1} cost more than {b3} dollars.",
        C,
    ),
    _T(
        "num-about",
        "numbers",
        "measure",
        "About {n} people attended the march in {c1}.",
        "Roughly {n} people attended the march in {c1}.",
        S,
    ),
    _T(
        "num-length",
        "numbers",
        "train",
        "The bridge in {c1} is {h} metres long.",
        "The bridge in {c1} is {h2} metres long.",
        C,
    ),
    _T(
        "num-plain",
        "numbers",
        "train",
        "The trial in {c1} enrolled {nplain} patients.",
        "The trial in {c1} enrolled {n} patients.",
        S,
    ),
    _T(
        "num-percent-t",
        "numbers",
        "train",
        "Turnout in {c1} was {pct}% in {y}.",
        "Turnout in {c1} was {pct} per cent in {y}.",
        S,
    ),
    _T(
        "num-percent-value-t",
        "numbers",
        "train",
        "Turnout in {c1} was {pct}% in {y}.",
        "Turnout in {c1} was {pct2} percent in {y}.",
        C,
    ),
    # dates
    _T(
        "date-format",
        "dates",
        "measure",
        "{p1} was born on {d} {mon} {y}.",
        "{p1} was born on {mon} {d}, {y}.",
        S,
    ),
    _T(
        "date-year",
        "dates",
        "measure",
        "{p1} was born on {d} {mon} {y}.",
        "{p1} was born on {d} {mon} {y2}.",
        C,
    ),
    _T(
        "date-closed",
        "dates",
        "measure",
        "The factory in {c1} closed in {y}.",
        "The factory in {c1} closed in {y2}.",
        C,
    ),
    _T(
        "date-treaty",
        "dates",
        "train",
        "The treaty of {c1} was signed in {y}.",
        "The treaty of {c1} was signed in {y2}.",
        C,
    ),
    _T(
        "date-station",
        "dates",
        "train",
        "The station in {c1} opened on {mon} {d}, {y}.",
        "The station in {c1} opened in {y}.",
        S,
    ),
    # roles
    _T(
        "role-final",
        "roles",
        "measure",
        "{p1} defeated {p2} in the final in {c1}.",
        "{p2} defeated {p1} in the final in {c1}.",
        N,
    ),
    _T(
        "role-called",
        "roles",
        "measure",
        "The {job1} called the {job2}.",
        "The {job2} called the {job1}.",
        N,
    ),
    _T(
        "role-interview",
        "roles",
        "measure",
        "{p1} interviewed {p2} for the documentary.",
        "{p2} interviewed {p1} for the documentary.",
        N,
    ),
    _T(
        "role-control",
        "roles",
        "measure",
        "{p1} defeated {p2} in the final in {c1}.",
        "{p2} was defeated by {p1} in the final in {c1}.",
        S,
    ),
    _T(
        "role-acquired",
        "roles",
        "train",
        "{o1} acquired {o2} in {y}.",
        "{o2} acquired {o1} in {y}.",
        N,
    ),
    _T(
        "role-sued",
        "roles",
        "train",
        "{p1} sued {p2} over the contract.",
        "{p2} sued {p1} over the contract.",
        N,
    ),
    _T(
        "role-control-t",
        "roles",
        "train",
        "{o1} acquired {o2} in {y}.",
        "{o2} was acquired by {o1} in {y}.",
        S,
    ),
    # entities
    _T("ent-born", "entities", "measure", "{p1} was born in {c1}.", "{p1} was born in {c2}.", C),
    _T(
        "ent-founder",
        "entities",
        "measure",
        "{o1} was founded by {p1}.",
        "{o1} was founded by {p2}.",
        C,
    ),
    _T(
        "ent-novel",
        "entities",
        "measure",
        "The novel was written by {p1} in {c1}.",
        "The novel was written by {p2} in {c1}.",
        C,
    ),
    _T(
        "ent-control",
        "entities",
        "measure",
        "{p1} was born in {c1}, a city in {k}.",
        "{p1} was born in {c1}.",
        S,
    ),
    _T(
        "ent-hq",
        "entities",
        "train",
        "The headquarters of {o1} are in {c1}.",
        "The headquarters of {o1} are in {c2}.",
        C,
    ),
    _T("ent-plays", "entities", "train", "{p1} plays for {o1}.", "{p2} plays for {o1}.", N),
    _T(
        "ent-control-t",
        "entities",
        "train",
        "The headquarters of {o1} are in {c1}, {k}.",
        "The headquarters of {o1} are in {c1}.",
        S,
    ),
    # quantifiers
    _T(
        "q-some-all",
        "quantifiers",
        "measure",
        "Some of the {thing} in {c1} were damaged.",
        "All of the {thing} in {c1} were damaged.",
        N,
    ),
    _T(
        "q-all-some",
        "quantifiers",
        "measure",
        "All of the {thing} in {c1} were inspected.",
        "Some of the {thing} in {c1} were inspected.",
        S,
    ),
    _T(
        "q-most-none",
        "quantifiers",
        "measure",
        "Most residents of {c1} voted in the referendum.",
        "None of the residents of {c1} voted in the referendum.",
        C,
    ),
    _T(
        "q-few-most",
        "quantifiers",
        "train",
        "Few of the {thing} in {c1} survived the fire.",
        "Most of the {thing} in {c1} survived the fire.",
        C,
    ),
    _T(
        "q-every-some",
        "quantifiers",
        "train",
        "Every school in {c1} closed during the strike.",
        "Some schools in {c1} closed during the strike.",
        S,
    ),
    # hedges
    _T(
        "hedge-coffee",
        "hedges",
        "measure",
        "Drinking coffee may be linked to a lower risk of {disease}.",
        "Drinking coffee prevents {disease}.",
        N,
    ),
    _T(
        "hedge-suggest",
        "hedges",
        "measure",
        "Researchers suggest that {food} might reduce the risk of {disease}.",
        "{Food} reduces the risk of {disease}.",
        N,
    ),
    _T(
        "hedge-control",
        "hedges",
        "measure",
        "Smoking causes {disease}.",
        "Smoking may cause {disease}.",
        S,
    ),
    _T(
        "hedge-could",
        "hedges",
        "train",
        "The report says the policy could lower prices in {c1}.",
        "The policy lowered prices in {c1}.",
        N,
    ),
    _T(
        "hedge-control-t",
        "hedges",
        "train",
        "Exercise reduces the risk of {disease}.",
        "Exercise may reduce the risk of {disease}.",
        S,
    ),
    # partial support
    _T(
        "part-studied",
        "partial",
        "measure",
        "{p1} was born in {c1}.",
        "{p1} was born in {c1} and studied law in {c2}.",
        N,
    ),
    _T(
        "part-moved",
        "partial",
        "measure",
        "{o1} was founded in {c1} in {y}.",
        "{o1} was founded in {c1} in {y} and moved to {c2} in {y2}.",
        N,
    ),
    _T(
        "part-wrong",
        "partial",
        "measure",
        "{p1} was born in {c1} and studied law in {c2}.",
        "{p1} was born in {c1} and studied law in {c3}.",
        C,
    ),
    _T(
        "part-control",
        "partial",
        "measure",
        "{p1} was born in {c1} and studied law in {c2}.",
        "{p1} studied law in {c2}.",
        S,
    ),
    _T(
        "part-taught",
        "partial",
        "train",
        "{p1} studied medicine in {c1}.",
        "{p1} studied medicine in {c1} and later taught in {c2}.",
        N,
    ),
    _T(
        "part-prize",
        "partial",
        "train",
        "{p1} and {p2} won the prize in {y}.",
        "{p1}, {p2} and {p3} won the prize in {y}.",
        N,
    ),
    _T(
        "part-control-t",
        "partial",
        "train",
        "{p1} studied medicine in {c1} and taught in {c2}.",
        "{p1} taught in {c2}.",
        S,
    ),
    # tense and time
    _T(
        "tense-mayor",
        "tense",
        "measure",
        "{p1} was the mayor of {c1} until {y}.",
        "{p1} is still the mayor of {c1} today.",
        C,
    ),
    _T(
        "tense-museum",
        "tense",
        "measure",
        "The museum in {c1} will open in {y}.",
        "The museum in {c1} opened in {y}.",
        N,
    ),
    _T(
        "tense-war",
        "tense",
        "measure",
        "{p1} moved to {c1} after the war.",
        "{p1} moved to {c1} before the war.",
        C,
    ),
    _T(
        "tense-control",
        "tense",
        "measure",
        "{p1} was the mayor of {c1} until {y}.",
        "{p1} was the mayor of {c1}.",
        S,
    ),
    _T(
        "tense-plans",
        "tense",
        "train",
        "{o1} plans to build a factory in {c1}.",
        "{o1} built a factory in {c1}.",
        N,
    ),
    _T(
        "tense-law",
        "tense",
        "train",
        "The law took effect before the election in {c1}.",
        "The law took effect after the election in {c1}.",
        C,
    ),
    _T(
        "tense-control-t",
        "tense",
        "train",
        "{o1} built a factory in {c1} in {y}.",
        "{o1} built a factory in {c1}.",
        S,
    ),
    # comparatives and superlatives
    _T(
        "cmp-larger",
        "comparatives",
        "measure",
        "{c1} is larger than {c2}.",
        "{c2} is larger than {c1}.",
        C,
    ),
    _T(
        "cmp-second",
        "comparatives",
        "measure",
        "{c1} is the second largest city in {k}.",
        "{c1} is the largest city in {k}.",
        C,
    ),
    _T(
        "cmp-control",
        "comparatives",
        "measure",
        "{c1} is larger than {c2}.",
        "{c2} is smaller than {c1}.",
        S,
    ),
    _T(
        "cmp-older",
        "comparatives",
        "train",
        "{p1} is older than {p2}.",
        "{p2} is older than {p1}.",
        C,
    ),
    _T(
        "cmp-third",
        "comparatives",
        "train",
        "{o1} is the third biggest bank in {k}.",
        "{o1} is the biggest bank in {k}.",
        C,
    ),
    _T(
        "cmp-control-t",
        "comparatives",
        "train",
        "{p1} is older than {p2}.",
        "{p2} is younger than {p1}.",
        S,
    ),
    # roles in clause structure: the claim's words all on the page, in other roles (a passive,
    # a noun that only qualifies the subject, a relative clause, a coordinated object), and
    # controls that state them (last, so that the cases above keep their filler words)
    _T(
        "role-passive",
        "roles",
        "measure",
        "{p1} was interviewed by {p2} for the documentary.",
        "{p1} interviewed {p2} for the documentary.",
        N,
    ),
    _T(
        "role-near",
        "roles",
        "measure",
        "The {job1} near {p1} called the {job2}.",
        "The {job2} called the {job1}.",
        N,
    ),
    _T(
        "role-near-subject",
        "roles",
        "measure",
        "The {job1} next to {p1} fainted during the ceremony.",
        "{p1} fainted during the ceremony.",
        N,
    ),
    _T(
        "role-relative",
        "roles",
        "measure",
        "The {job1} who {p1} hired praised the {job2}.",
        "The {job2} hired {p1}.",
        N,
    ),
    _T(
        "role-coordinated",
        "roles",
        "measure",
        "{p1} thanked {p2} and {p3} after the match.",
        "{p2} thanked {p3} after the match.",
        N,
    ),
    _T(
        "role-relative-control",
        "roles",
        "measure",
        "The {job1} who {p1} hired praised the {job2}.",
        "{p1} hired the {job1}.",
        S,
    ),
    _T(
        "role-near-control",
        "roles",
        "measure",
        "The {job1} near {p1} called the {job2}.",
        "The {job1} called the {job2}.",
        S,
    ),
    _T(
        "role-passive-t",
        "roles",
        "train",
        "{p1} was coached by {p2} in {c1}.",
        "{p1} coached {p2} in {c1}.",
        N,
    ),
    _T(
        "role-beside",
        "roles",
        "train",
        "The {job1} beside {p1} greeted the {job2}.",
        "The {job2} greeted the {job1}.",
        N,
    ),
    _T(
        "role-behind-subject",
        "roles",
        "train",
        "The {job1} behind {p1} applauded loudly.",
        "{p1} applauded loudly.",
        N,
    ),
    _T(
        "role-relative-t",
        "roles",
        "train",
        "The {job1} who {p1} recommended visited the {job2}.",
        "The {job2} recommended {p1}.",
        N,
    ),
    _T(
        "role-coordinated-t",
        "roles",
        "train",
        "{p1} invited {p2} and {p3} to the opening.",
        "{p2} invited {p3} to the opening.",
        N,
    ),
    _T(
        "role-relative-control-t",
        "roles",
        "train",
        "The {job1} who {p1} recommended visited the {job2}.",
        "{p1} recommended the {job1}.",
        S,
    ),
    _T(
        "role-coordinated-control-t",
        "roles",
        "train",
        "{p1} invited {p2} and {p3} to the opening.",
        "{p1} invited {p3} to the opening.",
        S,
    ),
    # hedges: a clause the page holds only as believed, asked, charged or said by nobody, and
    # controls (reported, known even where not known, convicted)
    _T(
        "hedge-believes",
        "hedges",
        "measure",
        "{p1} believes that {o1} will open an office in {c1}.",
        "{o1} will open an office in {c1}.",
        N,
    ),
    _T(
        "hedge-whether",
        "hedges",
        "measure",
        "Reporters asked whether {o1} had closed its office in {c1}.",
        "{o1} closed its office in {c1}.",
        N,
    ),
    _T(
        "hedge-did-not-say",
        "hedges",
        "measure",
        "{p1} did not say that {o1} would leave {c1}.",
        "{o1} will leave {c1}.",
        N,
    ),
    _T(
        "hedge-knew-control",
        "hedges",
        "measure",
        "{p1} did not know that {o1} had opened an office in {c1}.",
        "{o1} opened an office in {c1}.",
        S,
    ),
    _T(
        "hedge-said-control",
        "hedges",
        "measure",
        "{p1} said that {o1} had opened an office in {c1}.",
        "{o1} opened an office in {c1}.",
        S,
    ),
    _T(
        "hedge-accused",
        "hedges",
        "measure",
        "{p1} was accused of defrauding {o1} in {c1}, prosecutors said.",
        "{p1} defrauded {o1} in {c1}.",
        N,
    ),
    _T(
        "hedge-convicted-control",
        "hedges",
        "measure",
        "{p1} was convicted of defrauding {o1} in {c1}.",
        "{p1} defrauded {o1} in {c1}.",
        S,
    ),
    _T(
        "hedge-hopes",
        "hedges",
        "train",
        "{p1} hopes that {o1} will build a factory in {c1}.",
        "{o1} will build a factory in {c1}.",
        N,
    ),
    _T(
        "hedge-wondered",
        "hedges",
        "train",
        "Analysts wondered whether {o1} had sold its stake in {o2}.",
        "{o1} sold its stake in {o2}.",
        N,
    ),
    _T(
        "hedge-never-claimed",
        "hedges",
        "train",
        "{p1} never claimed that {o1} had moved to {c1}.",
        "{o1} moved to {c1}.",
        N,
    ),
    _T(
        "hedge-suspected",
        "hedges",
        "train",
        "{p1} is suspected of stealing paintings from {o1}.",
        "{p1} stole paintings from {o1}.",
        N,
    ),
    _T(
        "hedge-realise-control",
        "hedges",
        "train",
        "{p1} did not realise that {o1} had moved to {c1}.",
        "{o1} moved to {c1}.",
        S,
    ),
    _T(
        "hedge-announced-control",
        "hedges",
        "train",
        "{p1} announced that {o1} had moved to {c1}.",
        "{o1} moved to {c1}.",
        S,
    ),
)

_FILLERS: dict[str, dict[Half, tuple[str, ...]]] = {
    "p": {
        "measure": (
            "Maria Keller",
            "Tomas Novak",
            "Aisha Bello",
            "Kenji Watanabe",
            "Lucia Romano",
            "David Okafor",
            "Ingrid Larsen",
            "Rahul Mehta",
        ),
        "train": (
            "Anna Schmidt",
            "Pedro Alves",
            "Fatima Zahra",
            "Hiro Tanaka",
            "Sofia Rossi",
            "James Mensah",
            "Elin Berg",
            "Arjun Rao",
        ),
    },
    "c": {
        "measure": (
            "Lyon",
            "Porto",
            "Leeds",
            "Kraków",
            "Valencia",
            "Gothenburg",
            "Bologna",
            "Utrecht",
        ),
        "train": (
            "Marseille",
            "Seville",
            "Glasgow",
            "Gdańsk",
            "Bilbao",
            "Malmö",
            "Turin",
            "Rotterdam",
        ),
    },
    "k": {
        "measure": (
            "France",
            "Portugal",
            "England",
            "Poland",
            "Spain",
            "Sweden",
            "Italy",
            "the Netherlands",
        ),
        "train": (
            "Germany",
            "Brazil",
            "Scotland",
            "Austria",
            "Mexico",
            "Norway",
            "Greece",
            "Belgium",
        ),
    },
    "o": {
        "measure": (
            "Norvik Energy",
            "Bellmont Foods",
            "Qualis Labs",
            "Orion Freight",
            "Verdant Bank",
            "Halcyon Media",
        ),
        "train": (
            "Tessaro Motors",
            "Alder Pharma",
            "Blue Fjord Airlines",
            "Kestrel Steel",
            "Marlow Insurance",
            "Sunvale Telecom",
        ),
    },
    "thing": {
        "measure": ("bridges", "churches", "archives", "orchards"),
        "train": ("mills", "towers", "libraries", "vineyards"),
    },
    "job": {
        "measure": ("doctor", "lawyer", "teacher", "banker"),
        "train": ("nurse", "judge", "farmer", "pilot"),
    },
    "disease": {
        "measure": ("type 2 diabetes", "influenza", "liver disease"),
        "train": ("measles", "heart disease", "asthma"),
    },
    "food": {
        "measure": ("green tea", "olive oil", "walnuts"),
        "train": ("red wine", "dark chocolate", "garlic"),
    },
}
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_SMALL = ("two", "three", "five", "seven", "nine", "twelve")


def _fill(template: Template, rng: random.Random) -> tuple[str, str]:
    words = _FILLERS
    half = template.half
    people = rng.sample(words["p"][half], 3)
    cities = rng.sample(words["c"][half], 3)
    orgs = rng.sample(words["o"][half], 2)
    jobs = rng.sample(words["job"][half], 2)
    n = rng.randrange(1100, 98000)
    n2 = n + rng.choice((-1, 1)) * rng.randrange(300, 900)
    pct = rng.randrange(3, 40)
    h = rng.randrange(40, 400)
    a = rng.randrange(10, 40)
    b = a + rng.randrange(10, 60)
    y = rng.randrange(1950, 2021)
    food = rng.choice(words["food"][half])
    slots = {
        "p1": people[0],
        "p2": people[1],
        "p3": people[2],
        "c1": cities[0],
        "c2": cities[1],
        "c3": cities[2],
        "o1": orgs[0],
        "o2": orgs[1],
        "k": rng.choice(words["k"][half]),
        "thing": rng.choice(words["thing"][half]),
        "job1": jobs[0],
        "job2": jobs[1],
        "disease": rng.choice(words["disease"][half]),
        "food": food,
        "Food": food[0].upper() + food[1:],
        "n": f"{n:,}",
        "nplain": str(n),
        "n2": f"{n2:,}",
        "pct": str(pct),
        "pct2": str(pct + rng.choice((-2, -1, 1, 3, 5))),
        "h": str(h),
        "h2": str(h + rng.choice((-30, -12, 15, 40))),
        "a": str(a),
        "b": str(b),
        "b3": str(b * 3),
        "y": str(y),
        "y2": str(y + rng.choice((-9, -4, -2, 3, 6))),
        "d": str(rng.randrange(2, 28)),
        "mon": rng.choice(_MONTHS),
        "small": rng.choice(_SMALL),
    }
    evidence = template.evidence.format(**slots)
    claim = evidence if template.claim == "=" else template.claim.format(**slots)
    return evidence, claim


_CONTEXT = (
    "{c} has a long history as a trading town.",
    "The local newspaper covered the story at length.",
    "Officials released further details later that week.",
    "Residents were asked to comment on the plans.",
    "The figures were published in an annual report.",
    "Several experts reviewed the findings independently.",
)


def page(evidence: str, city: str, rng: random.Random) -> str:
    """The evidence sentence set between distractor sentences, as one paragraph."""
    before, after = rng.sample(_CONTEXT, 2)
    return " ".join((before.format(c=city), evidence, after.format(c=city)))


def template_cases(half: Half, per_template: int, seed: int = 13) -> Iterator[Case]:
    """``per_template`` cases of every template of ``half`` (seeded)."""
    rng = random.Random(f"{seed}:{half}")
    for template in TEMPLATES:
        if template.half != half:
            continue
        for i in range(per_template):
            evidence, claim = _fill(template, rng)
            city = rng.choice(_FILLERS["c"][half])
            yield Case(
                id=f"{template.id}:{i}",
                category=template.category,
                claim=claim,
                evidence=page(evidence, city, rng),
                expected=template.expected,
                template=template.id,
                source="template",
            )
