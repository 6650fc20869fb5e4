"""Load benchmark of the HTTP service: serves the demo site and the app on 127.0.0.1 and
sends bounded POST /verify load; prints counts and p50/p95 latency.

    python bench/api_load.py --requests 200 --concurrency 20
"""

from __future__ import annotations

import argparse
import asyncio

from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.demo.site import ARTICLE_CASES, OTHER_CASES, demo_routes
from citation_verifier.models import VerifyRequest
from citation_verifier.service.app import create_app
from citation_verifier.service.loadtest import run_load
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings


def main() -> None:
    """Run the benchmark with the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--no-cache", action="store_true", help="Disable page and verdict caches.")
    args = parser.parse_args()
    cache = {"fetch_cache_ttl_s": 0, "verdict_cache_max_entries": 0} if args.no_cache else {}
    settings = Settings(allow_private_urls=True, **cache)  # type: ignore[arg-type]
    with LoopbackSite(demo_routes()) as site, BackgroundServer(create_app(settings)) as service:
        payloads = [
            VerifyRequest(claim=case.claim, urls=[site.url(p) for p in case.paths])
            for case in (*ARTICLE_CASES, *OTHER_CASES)
        ]
        report = asyncio.run(
            run_load(service.url, payloads, requests=args.requests, concurrency=args.concurrency)
        )
    print(report.summary())


if __name__ == "__main__":
    main()
