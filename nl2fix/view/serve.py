"""Serving the viewer on this machine, or writing it as static files that open from the file system."""

from __future__ import annotations

import logging
import shutil
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from nl2fix.core.errors import Nl2FixError
from nl2fix.view import site
from nl2fix.view.app import HERE, create_app, every_page
from nl2fix.view.artifacts import every_log, open_log
from nl2fix.view.catalog import Catalog

if TYPE_CHECKING:
    from werkzeug.serving import BaseWSGIServer

DEFAULT_PORT = 7575


def server(catalog: Catalog, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> BaseWSGIServer:
    """The viewer's HTTP server (werkzeug's, threaded), bound and not yet serving; ``port`` 0 takes a free one.
    It does not log each request (werkzeug's default): the console is for the URL and errors."""
    from werkzeug.serving import make_server  # with Flask: only `view` needs it

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    try:
        return make_server(host, port, create_app(catalog, host=host), threaded=True)
    except OSError as exc:
        raise Nl2FixError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}", "choose another --port (0 takes a free one)"
        ) from exc


def url_of(httpd: BaseWSGIServer) -> str:
    return f"http://{httpd.host}:{httpd.port}/"


def start_page(catalog: Catalog) -> str:
    """The page the viewer opens on: the run's own page when there is one run (a list holding one run
    is a click in the way), else the list of runs."""
    return site.run_page(catalog.runs[0].id) if len(catalog.runs) == 1 else site.INDEX


def serve(catalog: Catalog, host: str, port: int, announce: Callable[[str], None]) -> None:
    """Serve the gathered runs until interrupted, announcing the URL of :func:`start_page`; the reports'
    figures render in the background."""
    # "Ctrl-C to stop" must hold even when started with SIGINT ignored, which a child inherits (from
    # a non-interactive shell's background job, or a test process whose libraries ignore it)
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    httpd = server(catalog, host, port)
    threading.Thread(target=catalog.warm, name="nl2fix-view-warm", daemon=True).start()
    announce(url_of(httpd) + start_page(catalog))
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()


def export(catalog: Catalog, out: Path) -> int:
    """Every page into ``out`` as files with relative links, with the style sheet, script and raw logs
    (regular files only, each as a ``.txt`` file); returns the number of pages."""
    app = create_app(catalog, static=True)
    client = app.test_client()
    pages = every_page(catalog)
    for path in pages:
        response = client.get(f"/{path}")
        if response.status_code != 200:
            raise Nl2FixError(f"the viewer could not render {path} (HTTP {response.status_code})")
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(response.data)
    shutil.copytree(HERE / "static", out / "static", dirs_exist_ok=True)
    for run in catalog.runs:
        for bug_id, hash, name in every_log(run.run_dir):
            source = open_log(run.run_dir, bug_id, hash, name)
            if source is None:  # gone, or replaced by a link, since it was listed
                continue
            target = out / site.log_file(run.id, bug_id, hash, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            with source, target.open("wb") as copy:
                shutil.copyfileobj(source, copy)
    return len(pages)
