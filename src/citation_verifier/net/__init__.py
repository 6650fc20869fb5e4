"""What every client of a remote HTTP service shares: the crawling API's (``fetch/crawlbase``),
the LLM providers' (``judge/transport``) and the archive's (``fetch/archive``): ``Retry-After``
and single-flight."""
