"""The facts of a statement: a sentence that joins several facts, split into one claim each, so
that each fact can be judged by the source that states it ("The bridge is 4.2 km long [1] and
was designed by Halvorsen & Brook [2]").

- Every language: a semicolon ends a fact.
- English, read by spaCy's dependency parse (the parser of ``judge/clause_roles.py``): verbs
  coordinated with the main verb ("… is 330 metres tall and was completed in 1889", "reduced
  mortality but caused nausea") and a clause after "while" or "whereas" are facts of their own.
  A fact without its own subject takes the main verb's ("The tower … was completed in 1889"), a
  pronoun subject is replaced by it ("it has 2.1 million inhabitants" → "Paris has …"), and a
  participle or bare verb without an auxiliary takes the main verb's ("was designed by A and
  built by B" → "… was built by B"; "will open in 2027 and carry …" → "… will carry …").

Coordinated nouns ("A and B won") stay one fact: splitting them changes what is claimed ("A and
B met" is no "A met"). A statement that yields one fact, or a fact under three words, stays
whole. At most ``MAX_FACTS`` facts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from citation_verifier.judge.clause_roles import ClauseParser

if TYPE_CHECKING:
    from spacy.tokens import Token

MAX_FACTS = 4
MIN_FACT_WORDS = 3
_SEMICOLON = re.compile(r"\s*;\s+")
_SUBJECTS = {"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"}
_AUXILIARIES = {"aux", "auxpass"}
_CONTRASTS = {"while", "whereas"}
_PRONOUNS = {"it", "he", "she", "they", "its", "this"}
_EDGE = " ,;:-–—"


class FactSplitter:
    """Splits statements into facts (module docstring). The parser loads at the first English
    statement that needs it; thread-safe."""

    def __init__(self, parser: ClauseParser | None = None) -> None:
        self._parser = parser or ClauseParser()

    def facts(self, statement: str, language: str | None = None) -> list[str]:
        """The facts of ``statement`` in order; ``[statement]`` when it states one."""
        pieces = [p.strip(_EDGE) for p in _SEMICOLON.split(statement.strip())]
        facts: list[str] = []
        for piece in pieces:
            if language in (None, "en") and piece:
                facts.extend(self._english(piece))
            elif piece:
                facts.append(piece)
        facts = [_sentence(f) for f in facts]
        if len(facts) < 2 or any(len(f.split()) < MIN_FACT_WORDS for f in facts):
            return [statement]
        return facts[:MAX_FACTS]

    def _english(self, text: str) -> list[str]:
        doc = self._parser.parse(text)
        roots = [t for t in doc if t.dep_ == "ROOT"]
        if len(roots) != 1 or roots[0].pos_ not in {"VERB", "AUX"}:
            return [text]
        root = roots[0]
        heads = [root, *_coordinated(root)]
        if len(heads) == 1:
            return [text]
        facts = []
        for head in heads:
            own = {t.i for t in head.subtree}
            # The other facts' words inside this one's subtree (all of them, for the root's).
            others = {t.i for h in heads if h is not head and h.i in own for t in h.subtree}
            words = [t for t in head.subtree if t.i not in others and not _joiner(t, heads)]
            facts.append(_filled(head, root, words))
        return facts


def _coordinated(root: Token) -> list[Token]:
    """The verbs coordinated with ``root`` (conjuncts of conjuncts too) and its "while"
    clauses, in order."""
    found: list[Token] = []
    todo = [root]
    while todo:
        verb = todo.pop()
        for child in verb.children:
            conjunct = child.dep_ == "conj" and child.pos_ in {"VERB", "AUX"}
            contrast = child.dep_ == "advcl" and any(
                c.dep_ == "mark" and c.lower_ in _CONTRASTS for c in child.children
            )
            if conjunct or contrast:
                found.append(child)
                todo.append(child)
    return sorted(found, key=lambda t: t.i)


def _joiner(token: Token, heads: list[Token]) -> bool:
    """A word that only joins two facts: "and"/"but" between verbs, "while", the comma before."""
    if token.dep_ == "cc" and token.head in heads:
        return True
    if token.dep_ == "mark" and token.lower_ in _CONTRASTS:
        return True
    return token.dep_ == "punct" and token.head in heads


def _filled(head: Token, root: Token, words: list[Token]) -> str:
    """The fact of ``head`` from ``words``, with the main verb's subject (and auxiliary)
    where it has none of its own, and for a pronoun subject."""
    text_of = {t.i: t.text_with_ws for t in words}
    prefix = ""
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS), None)
    if head is not root and subject is not None:
        subject_text = "".join(t.text_with_ws for t in subject.subtree)
        mine = next((c for c in head.children if c.dep_ in _SUBJECTS), None)
        if mine is None:
            prefix = subject_text
            bare = not any(c.dep_ in _AUXILIARIES for c in head.children)
            if bare and head.tag_ in {"VBN", "VB"}:
                prefix += "".join(c.text_with_ws for c in root.children if c.dep_ in _AUXILIARIES)
        elif mine.lower_ in _PRONOUNS and not list(mine.children):
            text_of[mine.i] = subject_text
    return prefix + "".join(text_of[t.i] for t in words).strip(_EDGE)


def _sentence(fact: str) -> str:
    """A fact as a sentence: capitalised, ending with its full stop."""
    fact = fact.strip(_EDGE)
    if not fact:
        return fact
    fact = fact[0].upper() + fact[1:]
    return fact if fact[-1] in ".!?" else fact + "."
