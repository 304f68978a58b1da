"""The viewer as a Flask app: one route per kind of page, each page a jinja2 template rendered from the
catalog (runs, their gathered reports) and the run stores, read-only. Every link in a page is relative
(``nl2fix.view.site``), so the pages the app serves are also the files a static export writes.

It answers only requests addressed to it by a loopback name or the address it serves (a page of another
site that has made its own name resolve to 127.0.0.1, DNS rebinding, is refused), serves raw logs only
as :mod:`nl2fix.view.artifacts` reads them, and shows a run whose store is gone, damaged or another
tool's as such while it serves the others."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from nl2fix import __version__
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.visible_text import html_visible
from nl2fix.store.run_store import RunStore
from nl2fix.view import site
from nl2fix.view.artifacts import open_log
from nl2fix.view.bug_page import bug_view as read_bug
from nl2fix.view.catalog import Catalog, Run
from nl2fix.view.compare_page import shared_bugs
from nl2fix.view.run_page import bug_lines, run_facts

if TYPE_CHECKING:
    from flask import Flask

HERE = Path(__file__).parent
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def _shown(value):
    """Every value a template prints: text with its hidden characters escaped and marked (autoescape
    handles ``<`` and ``&``, not control or bidirectional characters); markup the app made, as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return Markup(html_visible(value))
    return value


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without its port and brackets, in lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return (host.rpartition(":")[0] if host.count(":") == 1 else host).rstrip(".")


def host_allowed(host: str, served: str) -> bool:
    """Whether a request with this ``Host`` is addressed to a viewer serving on ``served``: a loopback
    name, the served address, or, when serving on every address, any address (DNS rebinding needs a
    name)."""
    name = host_name(host)
    if name in LOOPBACK_NAMES or name == host_name(served):
        return True
    if served in WILDCARDS:
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False
    return False


def create_app(catalog: Catalog, *, static: bool = False, host: str = "127.0.0.1") -> Flask:
    """The app over ``catalog`` served on ``host``; ``static``: pages for a static export (no form that
    needs the server)."""
    from flask import Flask, abort, redirect, render_template, request, send_file  # half a second: only `view`

    app = Flask(
        __name__, template_folder=str(HERE / "templates"), static_folder=str(HERE / "static"), static_url_path="/static"
    )
    app.jinja_env.trim_blocks = app.jinja_env.lstrip_blocks = True
    app.jinja_env.finalize = _shown

    @app.before_request
    def addressed_here():
        if not host_allowed(request.host, host):
            abort(403, f"this viewer answers requests to {host} or a loopback name, not to {request.host!r}")

    @app.errorhandler(Nl2FixError)
    def unreadable(exc: Nl2FixError):
        return f"nl2fix view: {exc}\n", 503, {"Content-Type": "text/plain; charset=utf-8"}

    def page(template: str, path: str, **values) -> str:
        return render_template(
            template, root=site.root_of(path), site=site, static=static, version=__version__, catalog=catalog, **values
        )

    def run_or_404(run_id: str) -> Run:
        run = catalog.run(run_id)
        if run is None:
            abort(404, f"no run {run_id!r} here")
        return run

    @app.route("/")
    @app.route("/index.html")
    def runs():
        rows, broken = [], []
        for run in catalog.runs:
            problem = catalog.problem(run)
            if problem is not None:
                broken.append((run, str(problem)))
                continue
            report = catalog.report(run)
            with RunStore(run.run_dir, read_only=True) as store:
                rows.append((run, report, run_facts(store, report)))
        return page("runs.html", site.INDEX, rows=rows, broken=broken)

    @app.route("/runs/<run_id>/")
    def run_folder(run_id: str):
        return redirect(f"/{site.run_page(run_or_404(run_id).id)}")

    @app.route("/runs/<run_id>/index.html")
    def run(run_id: str):
        run = run_or_404(run_id)
        report = catalog.report(run)
        with RunStore(run.run_dir, read_only=True) as store:
            facts, lines = run_facts(store, report), bug_lines(report, store.bugs())
        return page("run.html", site.run_page(run.id), run=run, report=report, facts=facts, lines=lines)

    @app.route("/runs/<run_id>/report.html")
    def report(run_id: str):
        run = run_or_404(run_id)
        return page("report.html", site.report_page(run.id), run=run, body=catalog.report_html(run))

    @app.route("/runs/<run_id>/bugs/<bug_id>.html")
    def bug(run_id: str, bug_id: str):
        run = run_or_404(run_id)
        order = [b.bug_id for b in catalog.report(run).bugs]
        if bug_id not in order:
            abort(404, f"no bug {bug_id!r} in run {run.id}")
        with RunStore(run.run_dir, read_only=True) as store:
            view = read_bug(store, bug_id)
        i = order.index(bug_id)
        others = [
            r
            for r in catalog.runs
            if r is not run and catalog.problem(r) is None and any(b.bug_id == bug_id for b in catalog.report(r).bugs)
        ]
        return page(
            "bug.html",
            site.bug_page(run.id, bug_id),
            run=run,
            view=view,
            previous=order[i - 1] if i else None,
            next=order[i + 1] if i + 1 < len(order) else None,
            position=i + 1,
            count=len(order),
            others=others,
        )

    @app.route("/runs/<run_id>/logs/<bug_id>/<hash>/<name>")
    def log(run_id: str, bug_id: str, hash: str, name: str):
        run_dir = run_or_404(run_id).run_dir
        if (
            not name.endswith(site.LOG_SUFFIX)
            or (file := open_log(run_dir, bug_id, hash, name.removesuffix(site.LOG_SUFFIX))) is None
        ):
            abort(404)
        # text, never sniffed: a log's first bytes are a candidate's to choose
        response = send_file(file, mimetype="text/plain; charset=utf-8", download_name=name, conditional=False)
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    def runs_of(key: str) -> list[Run]:
        ids = key.split(site.COMPARE_SEPARATOR)
        chosen = [run_or_404(i) for i in ids]
        if len(chosen) < 2 or len(set(ids)) < len(ids):
            abort(404, "compare two or more different runs")
        return chosen

    @app.route("/compare/<key>/index.html")
    def compare(key: str):
        chosen = runs_of(key)
        data = shared_bugs([(r.id, catalog.report(r)) for r in chosen])
        return page("compare.html", site.compare_page([r.id for r in chosen]), runs=chosen, data=data)

    @app.route("/compare/<key>/report.html")
    def compare_report(key: str):
        chosen = runs_of(key)
        return page(
            "compare_report.html",
            site.compare_report_page([r.id for r in chosen]),
            runs=chosen,
            body=catalog.compare_html(chosen),
        )

    return app


def every_page(catalog: Catalog) -> list[str]:
    """Every page of the site (the static export writes these); a run that cannot be read has none but
    its line on the index."""
    readable = [run for run in catalog.runs if catalog.problem(run) is None]
    pages = [site.INDEX]
    for run in readable:
        pages += [site.run_page(run.id), site.report_page(run.id)]
        pages += [site.bug_page(run.id, b.bug_id) for b in catalog.report(run).bugs]
    if len(readable) > 1:
        ids = [r.id for r in readable]
        pages += [site.compare_page(ids), site.compare_report_page(ids)]
    return pages
