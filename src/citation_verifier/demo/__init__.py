"""The demo: a real HTTP server on 127.0.0.1 (``loopback``, also what the tests and ``eval``
serve pages with) and the demo site and its examples (``site``)."""
