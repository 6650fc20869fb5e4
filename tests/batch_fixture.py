"""The article-style batch fixture: a loopback site and a 9-citation JSONL citing it
(2 supported, 1 contradicted, 3 not_found, 3 unreachable; one page cited three times)."""

from __future__ import annotations

import json
from pathlib import Path

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import demo_routes

GONE_HTML = "<html><body><h1>Gone</h1></body></html>"

# (id, claim, paths): each claim–path pair is one citation.
ARTICLE_RECORDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "q1",
        "Water boils at 100 degrees Celsius at sea level.",
        ("/articles/water-boiling-point", "/old-report"),
    ),
    ("q2", "Water boils at 50 degrees Celsius at sea level.", ("/articles/water-boiling-point",)),
    ("q3", "Mount Everest is 8,849 metres tall.", ("/reports/everest", "/news/lost-story")),
    ("q4", "The 2019 story explains how glaciers form.", ("/2019/10/deep-link-to-moved-story",)),
    ("q5", "Dinosaurs lived 65 million years ago.", ("/", "/retired/dinosaurs")),
    ("q6", "The Moon is made of green cheese.", ("/articles/water-boiling-point",)),
)


def article_routes() -> dict[str, Route]:
    """The demo site plus a 410 page."""
    routes: dict[str, Route] = dict(demo_routes())
    routes["/retired/dinosaurs"] = Page(GONE_HTML, status=410)
    return routes


def write_records(path: Path, site: LoopbackSite) -> Path:
    """Write the fixture's JSONL for ``site`` to ``path``."""
    lines = [
        json.dumps({"id": rid, "claim": claim, "urls": [site.url(p) for p in paths]})
        for rid, claim, paths in ARTICLE_RECORDS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def city_page(number: int) -> str:
    """An article page stating one fact about city ``number``."""
    return (
        f"<html><head><title>City {number}</title></head><body><main><article>"
        f"<h1>City {number}</h1><p>City {number} has a population of {number * 1000} people. "
        f"It lies on a river and was founded long ago by farmers and traders who settled "
        f"there because the land was fertile and the water was clean.</p>"
        f"<p>The city of number {number} is known for its markets, its old bridges and its "
        f"annual music festival, which draws visitors from the whole region every summer.</p>"
        f"</article></main></body></html>"
    )


def city_records(site: LoopbackSite, cities: int) -> list[dict[str, object]]:
    """Two claims per city (one true, one with a wrong number); the first also cites the next
    city's page, so pages are reused across records."""
    records: list[dict[str, object]] = []
    for n in range(cities):
        here, there = site.url(f"/city/{n}"), site.url(f"/city/{(n + 1) % cities}")
        records.append(
            {
                "id": f"t{n}",
                "claim": f"City {n} has a population of {n * 1000} people.",
                "urls": [here, there],
            }
        )
        records.append(
            {"id": f"f{n}", "claim": f"City {n} has a population of 7 people.", "urls": [here]}
        )
    return records


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    """``records`` as JSONL at ``path``."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
