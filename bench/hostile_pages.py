"""The hostile pages of issues #30 and #48 against a running loopback service: for each attack,
the time it took, the service's peak RSS while it ran and the worst /health latency meanwhile.

    python bench/hostile_pages.py                      # starts `citation-verifier serve` itself
    python bench/hostile_pages.py --url http://127.0.0.1:8000 --pid 1234   # a running one

The service must fetch loopback pages (ALLOW_PRIVATE_URLS=true; set for the one started here).
Targets: every answer within REQUEST_DEADLINE_S + 5 s, /health under 0.5 s during every attack,
RSS under 1.5 GB and under 1 GB a minute after the attacks (``--settle``), and, for a service
started here, SIGTERM ending it within 10 s with five long requests in flight. Exit status 1
when one is missed or an attack got an HTTP 5xx.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from citation_verifier.demo.hostile import hostile_routes, quadratic_answer
from citation_verifier.demo.loopback import LoopbackSite

HEALTH_TARGET_S = 0.5
RSS_TARGET_MB = 1536.0
SETTLED_RSS_TARGET_MB = 1024.0
SIGTERM_TARGET_S = 10.0
DEADLINE_TARGET_S = 65.0
"""REQUEST_DEADLINE_S (60) + 5 s: the longest any answer may take."""
CLAIM = "Water boils at 100 degrees Celsius at sea level."

Outcome = tuple[int, str]
"""An answer's HTTP status and what it said (each citation's label/reason, or the error)."""
Attack = Callable[[httpx.AsyncClient, LoopbackSite], Coroutine[Any, Any, list[Outcome]]]


@dataclass
class Measure:
    """What one attack did to the service."""

    name: str
    seconds: float
    peak_rss_mb: float
    """The service process (the target)."""
    peak_browser_mb: float
    """Chromium, when a page was rendered (proportional set size of its processes)."""
    health_max_s: float
    outcomes: list[Outcome]

    @property
    def ok(self) -> bool:
        """The targets held and no request got a 5xx."""
        took = [float(m.group(1)) for _, said in self.outcomes if (m := _TOOK.search(said))]
        return (
            self.health_max_s < HEALTH_TARGET_S
            and self.peak_rss_mb < RSS_TARGET_MB
            and all(status < 500 for status, _ in self.outcomes)
            and all(seconds <= DEADLINE_TARGET_S for seconds in took)
        )


_TOOK = re.compile(r" in ([\d.]+) s$")


def rss_mb(pid: int) -> float:
    """Resident memory of the service process ``pid``, in MB (Linux /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


def children_pss_mb(pid: int) -> float:
    """Proportional memory of the processes ``pid`` started (Chromium), in MB: their shared
    pages counted once between them, as RSS would not."""
    total = 0
    for child in _children(pid):
        try:
            rollup = Path(f"/proc/{child}/smaps_rollup").read_text()
        except OSError:
            continue
        found = re.search(r"^Pss:\s+(\d+) kB", rollup, re.M)
        total += int(found.group(1)) if found else 0
    return total / 1024


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
        except OSError:
            continue
        for child in map(int, text.split()):
            found.extend([child, *_children(child)])
    return found


def _outcome(response: httpx.Response) -> Outcome:
    body = response.json()
    if response.status_code != 200:
        return response.status_code, str(body.get("detail", ""))[:40]
    if "statements" in body:
        return 200, f"{len(body['statements'])} statement(s)"
    said = [f"{c['label']}/{c['reason']}" if c["reason"] else c["label"] for c in body["citations"]]
    return 200, " ".join(said)


async def _verify(client: httpx.AsyncClient, urls: list[str], **extra: object) -> Outcome:
    response = await client.post("/verify", json={"claim": CLAIM, "urls": urls, **extra})
    return _outcome(response)


async def answer_parser(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """Ten /check-answer requests with the answer that parsed in quadratic time."""
    answer = quadratic_answer()
    responses = await asyncio.gather(
        *(client.post("/check-answer", json={"answer": answer}) for _ in range(10))
    )
    return [_outcome(r) for r in responses]


async def zstd_bomb(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """A 130 KB zstd body that decodes to 4 GiB."""
    return [await _verify(client, [site.url("/zstd-bomb")])]


async def gzip_bomb(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """A 1 MB gzip body that decodes to 1 GiB."""
    return [await _verify(client, [site.url("/gzip-bomb")])]


async def slow_fetches(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """Four JavaScript pages firing 30 slow fetch() calls each, then another user's page."""
    hostile = [_verify(client, [site.url(f"/slow-fetches?v={n}")]) for n in range(4)]
    outcomes = list(await asyncio.gather(*hostile))
    return [*outcomes, await _verify(client, [site.url("/tiny")])]


async def heavy_pdfs(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """Six PDFs of 500 pages sharing one 4 MB content stream, and another user's tiny page."""
    attack = asyncio.create_task(_verify(client, [site.url(f"/heavy-{n}.pdf") for n in range(6)]))
    await asyncio.sleep(0.5)
    other = await _verify(client, [site.url("/tiny")])
    return [await attack, other]


async def big_text(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """A 5 MB text page (100,000 paragraphs)."""
    return [await _verify(client, [site.url("/big.txt")])]


async def odd_input(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """Location: http:127.0.0.1, a page with &#1;, and cited_at 0001-01-01T00:00:00+14:00."""
    return [
        await _verify(client, [site.url("/bad-location"), site.url("/controls")]),
        await _verify(client, [site.url("/tiny")], cited_at="0001-01-01T00:00:00+14:00"),
    ]


async def _timed(client: httpx.AsyncClient, urls: list[str]) -> Outcome:
    started = time.monotonic()
    status, said = await _verify(client, urls)
    return status, f"{said} in {time.monotonic() - started:.1f} s"


async def consent_abuse(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """A consent wall whose script abuses the refusal's channel to the service (eval of
    150 MB x4, 200 MB platform names x6, binding floods, a forged opt-in), and another user's
    JavaScript page half a second later; each answer with its time."""
    attack = asyncio.create_task(_timed(client, [site.url("/consent-abuse")]))
    await asyncio.sleep(0.5)
    other = await _timed(client, [site.url("/js-article")])
    return [await attack, other]


LONG_CLAIM = " ".join(f"Gate {n} of the old bridge opens at {n % 12 + 1} am." for n in range(140))
WATER = (
    "Water (sample {n}) boils at 100 degrees Celsius at sea level [1].",
    "At higher altitudes water boils at a lower temperature, sample {n} shows [2].",
    "Salt raises the boiling point of water slightly, by sample {n} [1].",
)


def long_answer(site: LoopbackSite, chars: int = 19_888) -> str:
    """An answer of short statements citing two pages, ``chars`` characters long (sources
    included): the longest the service accepts is 20,000."""
    sources = f"\n\nSources:\n[1] {site.url('/tiny')}\n[2] {site.url('/controls')}\n"
    text, n = "", 0
    while len(text) + len(sources) < chars:
        text += WATER[n % len(WATER)].format(n=n) + " "
        n += 1
    return text[: chars - len(sources)].rstrip() + sources


async def _timed_post(client: httpx.AsyncClient, path: str, body: dict[str, object]) -> Outcome:
    started = time.monotonic()
    try:
        response = await client.post(path, json=body)
    except httpx.TimeoutException:
        return 0, f"client left after {time.monotonic() - started:.1f} s"
    status, said = _outcome(response)
    return status, f"{said} in {time.monotonic() - started:.1f} s"


async def long_claim(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """A 4,969-character claim of 140 short sentences (once 142 parts and 145 s)."""
    claim = LONG_CLAIM[:4968] + "."
    return [await _timed_post(client, "/verify", {"claim": claim, "urls": [site.url("/tiny")]})]


async def long_requests(client: httpx.AsyncClient, site: LoopbackSite) -> list[Outcome]:
    """Five long requests at once (two 19,888-character answers, three 5,000-character claims;
    once none answered in 400 s), five more from clients that hang up after 5 s, and another
    user's page; each answer with its time."""
    claim = (LONG_CLAIM * 2)[:4999] + "."
    asked = [
        *(_timed_post(client, "/check-answer", {"answer": long_answer(site)}) for _ in range(2)),
        *(
            _timed_post(client, "/verify", {"claim": claim, "urls": [site.url("/tiny")]})
            for _ in range(3)
        ),
    ]
    outcomes = list(await asyncio.gather(*asked))
    async with httpx.AsyncClient(base_url=client.base_url, timeout=5) as leaving:
        gone = [
            _timed_post(leaving, "/check-answer", {"answer": long_answer(site)}) for _ in range(5)
        ]
        outcomes += await asyncio.gather(*gone)
    return [*outcomes, await _timed(client, [site.url("/tiny")])]


ATTACKS: dict[str, Attack] = {
    "answer parser x10": answer_parser,
    "zstd bomb 4 GiB": zstd_bomb,
    "gzip bomb 1 GiB": gzip_bomb,
    "JS slow fetches x4": slow_fetches,
    "heavy PDFs x6": heavy_pdfs,
    "5 MB text page": big_text,
    "odd redirect/page/date": odd_input,
    "consent channel abuse": consent_abuse,
    "claim of 140 sentences": long_claim,
    "long requests x5 +5 left": long_requests,
}


async def measure(
    name: str, attack: Attack, base_url: str, pid: int | None, site: LoopbackSite
) -> Measure:
    """Run ``attack`` while polling /health (every 0.1 s) and the RSS of ``pid``."""
    peak_rss = rss_mb(pid) if pid else 0.0
    peak_browser = children_pss_mb(pid) if pid else 0.0
    worst_health = 0.0
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=300) as client,
        httpx.AsyncClient(base_url=base_url, timeout=30) as probe,
    ):
        started = time.monotonic()
        task = asyncio.create_task(attack(client, site))
        while not task.done():
            asked = time.monotonic()
            await probe.get("/health")
            worst_health = max(worst_health, time.monotonic() - asked)
            if pid:
                peak_rss = max(peak_rss, rss_mb(pid))
                peak_browser = max(peak_browser, children_pss_mb(pid))
            await asyncio.sleep(0.1)
        outcomes = await task
        seconds = time.monotonic() - started
    return Measure(name, seconds, peak_rss, peak_browser, worst_health, outcomes)


def _summary(outcomes: list[Outcome]) -> str:
    counts: dict[str, int] = {}
    for status, said in outcomes:
        key = f"{status} {said}"
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(f"{n}x {key}" if n > 1 else key for key, n in counts.items())


def start_service() -> tuple[subprocess.Popen[str], str]:
    """``citation-verifier serve --port 0`` with loopback pages allowed; returns its URL."""
    env = {**os.environ, "ALLOW_PRIVATE_URLS": "true"}
    process = subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"listening on (http://\S+)", line)
    if not found:
        process.kill()
        raise SystemExit(f"the service did not start: {line!r}")
    return process, found.group(1)


async def run(args: argparse.Namespace) -> int:
    """Every attack in turn; prints one line each and the targets."""
    process = None
    url, pid = args.url, args.pid
    if url is None:
        process, url = start_service()
        pid = process.pid
    print("building the hostile pages...", file=sys.stderr)
    try:
        with LoopbackSite(hostile_routes()) as site:
            print(
                f"{'attack':24} {'time s':>7} {'peak RSS MB':>12} {'browser MB':>11} "
                f"{'/health max s':>14}  answers"
            )
            results = []
            for name, attack in ATTACKS.items():
                if args.only and args.only not in name:
                    continue
                result = await measure(name, attack, url, pid, site)
                results.append(result)
                rss = f"{result.peak_rss_mb:12.0f}" if pid else f"{'n/a':>12}"
                browser = f"{result.peak_browser_mb:11.0f}" if pid else f"{'n/a':>11}"
                print(
                    f"{name:24} {result.seconds:7.1f} {rss} {browser} {result.health_max_s:14.3f}  "
                    f"{_summary(result.outcomes)}{'' if result.ok else '  MISSED'}",
                    flush=True,
                )
            settled_ok, stopped_ok = True, True
            if process is not None and args.settle:
                await asyncio.sleep(args.settle)
                settled = rss_mb(process.pid)
                settled_ok = settled < SETTLED_RSS_TARGET_MB
                print(f"service RSS {args.settle:.0f} s after the attacks: {settled:.0f} MB")
            if process is not None:
                took = await sigterm_under_load(process, url, site)
                stopped_ok = took < SIGTERM_TARGET_S
                print(f"SIGTERM with five long requests in flight: exited in {took:.1f} s")
    finally:
        if process is not None and process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
    print(
        f"targets: every answer within REQUEST_DEADLINE_S + 5 s (65 s), /health < "
        f"{HEALTH_TARGET_S} s, service RSS < {RSS_TARGET_MB:.0f} MB and < "
        f"{SETTLED_RSS_TARGET_MB:.0f} MB a minute after, SIGTERM exit < {SIGTERM_TARGET_S:.0f} s, "
        "no 5xx (the browser's memory is shown apart: RENDER_* and BROWSER_PAGES bound it)"
    )
    return 0 if all(r.ok for r in results) and settled_ok and stopped_ok else 1


async def sigterm_under_load(process: subprocess.Popen[str], url: str, site: LoopbackSite) -> float:
    """Seconds from SIGTERM to the service's exit, with five long requests in flight."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        claim = (LONG_CLAIM * 2)[:4999] + "."
        body = {"claim": claim, "urls": [site.url("/tiny")]}
        flight = [asyncio.create_task(client.post("/verify", json=body)) for _ in range(5)]
        await asyncio.sleep(3)
        process.terminate()
        asked = time.monotonic()
        while process.poll() is None and time.monotonic() - asked < 60:
            await asyncio.sleep(0.05)
        took = time.monotonic() - asked
        await asyncio.gather(*flight, return_exceptions=True)
    return took


def main() -> None:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="A running service (default: start one here).")
    parser.add_argument("--pid", type=int, help="Its process id, for the RSS (with --url).")
    parser.add_argument("--only", help="Run the attacks whose name contains this.")
    parser.add_argument(
        "--settle",
        type=float,
        default=60.0,
        help="Seconds to wait after the attacks before reading the RSS again (0: skip).",
    )
    raise SystemExit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
