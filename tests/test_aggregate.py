import pytest

from citation_verifier.aggregate import aggregate
from citation_verifier.models import Label

S, C, N, U = Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND, Label.UNREACHABLE


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([S, S, C], C),
        ([C, U], C),
        ([S, U, N], S),
        ([U, U], U),
        ([U], U),
        ([U, N], N),
        ([N], N),
        ([], N),
    ],
)
def test_fixed_aggregation_rule(labels: list[Label], expected: Label) -> None:
    assert aggregate(labels) == expected
