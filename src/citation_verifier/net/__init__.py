"""What every client of a remote HTTP service shares: the crawling API's (``fetch/crawlbase``)
and the LLM providers' (``judge/transport``)."""
