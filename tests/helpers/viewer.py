"""``nl2fix view``'s server for a test: the runs' pages served on 127.0.0.1, on a free port."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nl2fix.view.catalog import Catalog
from nl2fix.view.serve import server, url_of


@contextmanager
def viewing(*runs: Path) -> Iterator[str]:
    """Serve ``runs`` as ``nl2fix view`` does while the block runs; yields the viewer's address."""
    httpd = server(Catalog(list(runs)), "127.0.0.1", 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield url_of(httpd)
    finally:
        httpd.shutdown()
        httpd.server_close()
