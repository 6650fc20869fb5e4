"""Same words, different roles: pairs whose claim uses only the evidence sentence's words.

Written here, in the manner of HANS (McCoy et al., 2019: a model that reads word overlap as
entailment fails them), with our own nouns and verbs: for each construction, a page sentence
and a claim made of its words, which the sentence either states (a passive turned active, the
subject of a sentence with a prepositional phrase, a relative clause untangled, one of two
coordinated subjects, a clause after "since") or does not (subject and object swapped, a passive
read as active, the noun of a prepositional phrase or relative clause taken for the subject, two
coordinated objects, the object of "knew" that is a clause's subject, a clause under "if" or
beside "or"). Each case runs end to end through the default judge on a short page; the score is
balanced accuracy of supported against the rest, with the pass rate per construction.

    python bench/role_pairs.py --per-construction 12 --seed 7
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections import defaultdict
from collections.abc import Callable

from citation_verifier.behaviour.cases import Case
from citation_verifier.behaviour.suite import run_cases
from citation_verifier.models import Label
from citation_verifier.settings import Settings

NOUNS = [
    "doctor",
    "lawyer",
    "banker",
    "artist",
    "senator",
    "student",
    "manager",
    "author",
    "secretary",
    "judge",
    "athlete",
    "scientist",
    "tourist",
    "president",
    "actor",
    "professor",
]
VERBS = [
    "saw",
    "helped",
    "called",
    "thanked",
    "advised",
    "recommended",
    "contacted",
    "introduced",
    "encouraged",
    "avoided",
]
INTRANSITIVE = ["danced", "slept", "resigned", "waited", "shouted", "arrived"]
Make = Callable[[str, str, str, str, str, str], tuple[str, str]]
S, N = Label.SUPPORTED, Label.NOT_FOUND
# name, expected label, (a, b, c, verb, other verb, intransitive verb) → (sentence, claim)
CONSTRUCTIONS: tuple[tuple[str, Label, Make], ...] = (
    ("swap", N, lambda a, b, c, v, w, i: (f"The {a} {v} the {b}.", f"The {b} {v} the {a}.")),
    (
        "passive as active",
        N,
        lambda a, b, c, v, w, i: (f"The {a} was {v} by the {b}.", f"The {a} {v} the {b}."),
    ),
    (
        "plural passive as active",
        N,
        lambda a, b, c, v, w, i: (f"The {a}s were {v} by the {b}s.", f"The {a}s {v} the {b}s."),
    ),
    (
        "participle as active",
        N,
        lambda a, b, c, v, w, i: (f"The {a} {v} by the {b} {i}.", f"The {a} {v} the {b}."),
    ),
    (
        "swap around a prepositional phrase",
        N,
        lambda a, b, c, v, w, i: (
            f"The {a} near the {c} {v} the {b}.",
            f"The {b} {v} the {a}.",
        ),
    ),
    (
        "noun of a prepositional phrase as subject",
        N,
        lambda a, b, c, v, w, i: (f"The {a} near the {b} {i}.", f"The {b} {i}."),
    ),
    (
        "relative clause swapped",
        N,
        lambda a, b, c, v, w, i: (
            f"The {a} who the {c} {v} {w} the {b}.",
            f"The {b} {v} the {c}.",
        ),
    ),
    (
        "relative clause on the object",
        N,
        lambda a, b, c, v, w, i: (
            f"The {a} {v} the {b} who {w} the {c}.",
            f"The {c} {v} the {b}.",
        ),
    ),
    (
        "two objects as subject and object",
        N,
        lambda a, b, c, v, w, i: (
            f"The {a} {v} the {b} and the {c}.",
            f"The {b} {v} the {c}.",
        ),
    ),
    (
        "a clause's subject as the object",
        N,
        lambda a, b, c, v, w, i: (
            f"The {a} knew the {b} {v} the {c}.",
            f"The {a} knew the {b}.",
        ),
    ),
    (
        "under if",
        N,
        lambda a, b, c, v, w, i: (f"If the {a} {i}, the {b} {v} the {c}.", f"The {a} {i}."),
    ),
    (
        "beside or",
        N,
        lambda a, b, c, v, w, i: (f"The {a} {v} the {b}, or the {c} {i}.", f"The {a} {v} the {b}."),
    ),
    (
        "passive turned active",
        S,
        lambda a, b, c, v, w, i: (f"The {a} was {v} by the {b}.", f"The {b} {v} the {a}."),
    ),
    (
        "names, passive turned active",
        S,
        lambda a, b, c, v, w, i: (
            f"In 2019, Maria Lopez was {v} by David Chen at the conference.",
            f"David Chen {v} Maria Lopez at the conference.",
        ),
    ),
    (
        "relative clause untangled",
        S,
        lambda a, b, c, v, w, i: (
            f"The {a} who the {c} {v} {w} the {b}.",
            f"The {c} {v} the {a}.",
        ),
    ),
    (
        "main clause around a relative clause",
        S,
        lambda a, b, c, v, w, i: (
            f"The {a} who the {c} {w} {v} the {b}.",
            f"The {a} {v} the {b}.",
        ),
    ),
    (
        "relative clause stated",
        S,
        lambda a, b, c, v, w, i: (f"The {a} who {v} the {c} {i}.", f"The {a} {v} the {c}."),
    ),
    (
        "object's relative clause left out",
        S,
        lambda a, b, c, v, w, i: (
            f"The {a} {v} the {b} who the {c} {w}.",
            f"The {a} {v} the {b}.",
        ),
    ),
    (
        "prepositional phrase left out",
        S,
        lambda a, b, c, v, w, i: (
            f"The {a} near the {c} {v} the {b}.",
            f"The {a} {v} the {b}.",
        ),
    ),
    (
        "one of two subjects",
        S,
        lambda a, b, c, v, w, i: (
            f"The {a} and the {c} {v} the {b}.",
            f"The {c} {v} the {b}.",
        ),
    ),
    (
        "one of two clauses joined by and",
        S,
        lambda a, b, c, v, w, i: (
            f"The {a} {v} the {b}, and the {c} {i}.",
            f"The {a} {v} the {b}.",
        ),
    ),
    (
        "after since",
        S,
        lambda a, b, c, v, w, i: (f"Since the {a} {i}, the {b} {v} the {c}.", f"The {a} {i}."),
    ),
)


def cases(per_construction: int, seed: int) -> list[Case]:
    """``per_construction`` pairs of every construction, each on a page of two sentences."""
    rng = random.Random(seed)
    out = []
    for name, expected, make in CONSTRUCTIONS:
        for k in range(per_construction):
            a, b, c = rng.sample(NOUNS, 3)
            v, w = rng.sample(VERBS, 2)
            sentence, claim = make(a, b, c, v, w, rng.choice(INTRANSITIVE))
            page = f"{sentence} The meeting took place on a Tuesday in spring."
            out.append(Case(f"{name}:{k}", "roles", claim, page, expected, name, "bench"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-construction", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="Print every failed pair.")
    args = parser.parse_args()
    outcomes = asyncio.run(run_cases(cases(args.per_construction, args.seed), Settings()))
    by: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        by[outcome.case.template].append(outcome.passed)
        if args.show and not outcome.passed:
            print(f"  {outcome.case.evidence}  =>  {outcome.case.claim}: {outcome.predicted}")
    print("| construction | expected | passed |")
    print("|---|---|---:|")
    for name, expected, _ in CONSTRUCTIONS:
        print(f"| {name} | {expected.value} | {sum(by[name])} of {len(by[name])} |")
    positive = [o.passed for o in outcomes if o.case.expected == S]
    negative = [o.passed for o in outcomes if o.case.expected != S]
    balanced = (sum(positive) / len(positive) + sum(negative) / len(negative)) / 2
    print(f"\nbalanced accuracy {balanced:.3f} (n = {len(outcomes)})")


if __name__ == "__main__":
    main()
