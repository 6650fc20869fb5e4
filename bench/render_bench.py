"""Render time per page and the browser's memory with the page pool full.

    python bench/render_bench.py [--pages 20] [--pool 4]

Serves single-page-app pages on 127.0.0.1 (text only after JavaScript and a delayed XHR), renders
them through the real BrowserRenderer with ``--pool`` pages at once, and prints the median and
p90 render time (launch excluded), the launch time, and the memory of the Chromium processes
(PSS, so shared pages are not counted twice; RSS beside it) sampled while every pool slot held a
page. Then runs ``citation-verifier verify`` on one SPA page with RENDER_JS=auto and =never.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.fetch.browser import BrowserRenderer
from citation_verifier.settings import Settings

CLAIM = "Water boils at 100 degrees Celsius at sea level."
PARAGRAPHS = [
    "Water boils at 100 degrees Celsius at sea level.",
    "This is the standard boiling point, measured at a pressure of one standard atmosphere.",
    "At higher altitudes the air pressure is lower, so water boils at a lower temperature.",
]
SPA = """<!doctype html><html><head><title>App</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script>setTimeout(function () {
  fetch('/api/article').then(function (r) { return r.json(); }).then(function (d) {
    document.getElementById('root').innerHTML =
      '<article><h1>' + d.title + '</h1>' + d.paragraphs.map(function (p) {
        return '<p>' + p + '</p>'; }).join('') + '</article>';
  });
}, 100);</script></body></html>"""
API = Page(
    json.dumps({"title": "The boiling point of water", "paragraphs": PARAGRAPHS}),
    content_type="application/json",
    delay_s=0.2,
)


def _descendants(root: int) -> list[int]:
    """Process ids below ``root``, from one pass over /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _memory_kib(pid: int) -> tuple[int, int]:
    """(PSS, RSS) in KiB of one process; zeros when it is gone."""
    pss = rss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


def chromium_memory_mib() -> tuple[float, float, int]:
    """(PSS, RSS, process count) of the Chromium processes under this Python process."""
    pss = rss = count = 0
    for pid in _descendants(os.getpid()):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if "chrom" not in exe:
            continue  # the Playwright driver (node) is not the browser
        p, r = _memory_kib(pid)
        pss, rss, count = pss + p, rss + r, count + 1
    return pss / 1024, rss / 1024, count


async def bench(pages: int, pool: int) -> dict[str, float]:
    """Render ``pages`` SPA pages, ``pool`` at a time; sample memory while the pool is full."""
    routes: dict[str, Page] = {f"/spa/{i}": Page(SPA) for i in range(pages)}
    routes["/api/article"] = API
    # A generous deadline: on a loaded machine the measure must not turn into a failure.
    settings = Settings(allow_private_urls=True, browser_pages=pool, render_timeout_s=120)
    renderer = BrowserRenderer(settings)
    peak = (0.0, 0.0, 0)
    with LoopbackSite(routes) as site:
        started = time.monotonic()
        await renderer.start()
        launch_s = time.monotonic() - started
        done = asyncio.Event()

        async def sample() -> None:
            nonlocal peak
            while not done.is_set():
                now = chromium_memory_mib()
                if now[0] > peak[0]:
                    peak = now
                await asyncio.sleep(0.5)

        sampler = asyncio.create_task(sample())
        try:
            results = await asyncio.gather(
                *(renderer.render(site.url(f"/spa/{i}")) for i in range(pages))
            )
        finally:
            done.set()
            await sampler
            await renderer.aclose()
    times = sorted(float(str(r.extra["render_s"])) for r in results)
    failed = [r.requested_url for r in results if PARAGRAPHS[0].encode() not in r.body]
    if failed:
        raise SystemExit(f"{len(failed)} page(s) ended without their text: {failed}")
    return {
        "pages": pages,
        "pool": pool,
        "launch_s": round(launch_s, 2),
        "render_median_s": round(statistics.median(times), 2),
        "render_p90_s": round(times[int(0.9 * (len(times) - 1))], 2),
        "chromium_pss_mib_pool_full": round(peak[0], 1),
        "chromium_rss_mib_pool_full": round(peak[1], 1),
        "chromium_processes": peak[2],
        "load_average_1m": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count() or 0,
    }


def cli_verify(render_js: str) -> dict[str, object]:
    """``citation-verifier verify --json`` on one SPA page, as a user runs it."""
    with LoopbackSite({"/spa": Page(SPA), "/api/article": API}) as site:
        env = {**os.environ, "ALLOW_PRIVATE_URLS": "true", "RENDER_JS": render_js}
        command = [sys.executable, "-m", "citation_verifier", "verify", "--json", CLAIM]
        out = subprocess.run(
            [*command, site.url("/spa")], env=env, capture_output=True, text=True, check=True
        ).stdout
    citation = json.loads(out)["citations"][0]
    keys = ("label", "reason", "rendered", "evidence_quote")
    return {"RENDER_JS": render_js, **{k: citation[k] for k in keys}}


def main() -> None:
    """Parse arguments, run the benchmark, print one JSON line per measurement."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--pool", type=int, default=Settings().browser_pages)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(bench(args.pages, args.pool))))
    for mode in ("auto", "never"):
        print(json.dumps(cli_verify(mode)))


if __name__ == "__main__":
    main()
