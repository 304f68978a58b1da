"""The viewer over real HTTP on 127.0.0.1 serves a run's raw logs and nothing else: no file beside the run
through ``..`` (plain or percent-encoded), no store, no link's target (a candidate's test may leave a
link to anywhere in its artifact folder), nothing to a request addressed to another host name (DNS
rebinding); its export copies no link's target and writes logs as text. A run given as a relative path
is served; a run that disappears or is damaged is shown as such while the others are served."""

from __future__ import annotations

import http.client
import os
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.store.run_store import STORE_FILE
from nl2fix.validation.stage import ARTIFACTS
from nl2fix.view import site
from nl2fix.view.app import host_allowed
from nl2fix.view.catalog import Catalog
from nl2fix.view.serve import server
from tests.helpers.report_run import build_run

SECRET = "the user's secret, beside the run\n"
LOG = "NL2FIX\tSIGNED\t0\tc1\tSTART\n"


def _run(base: Path, name: str) -> Path:
    """A run with one raw log of Demo-1's candidate ``b``, links beside it to files outside the run, and
    secrets beside the run directory and in the parent's parent."""
    run_dir = build_run(base / name)
    logs = run_dir / ARTIFACTS / "Demo-1" / "b"
    logs.mkdir(parents=True)
    (logs / "runner.out").write_text(LOG)
    for folder in (base, base.parent):
        (folder / "secret").write_text(SECRET)
        (folder / "secret.txt").write_text(SECRET)
    (logs / "passwd").symlink_to("/etc/passwd")
    (logs / "secret").symlink_to(base / "secret")
    (logs / "store").symlink_to(run_dir / STORE_FILE)
    (run_dir / ARTIFACTS / "Demo-1" / "up").symlink_to(base)  # a linked folder: its files must stay out
    return run_dir


class _Served:
    """``catalog`` served by the viewer's own HTTP server on 127.0.0.1, asked with raw requests."""

    def __init__(self, catalog: Catalog):
        self.httpd = server(catalog, "127.0.0.1", 0)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def get(self, path: str, host: str | None = None) -> tuple[int, str, str]:
        """Status, content type and body of GET ``path`` sent exactly as written."""
        connection = http.client.HTTPConnection("127.0.0.1", self.httpd.port, timeout=30)
        try:
            connection.putrequest("GET", path, skip_host=True)
            connection.putheader("Host", host or f"127.0.0.1:{self.httpd.port}")
            connection.endheaders()
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type") or "", response.read().decode(errors="replace")
        finally:
            connection.close()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def served(tmp_path):
    started: list[_Served] = []

    def serve(catalog: Catalog) -> _Served:
        started.append(_Served(catalog))
        return started[-1]

    yield serve
    for one in started:
        one.close()


def test_raw_logs_are_served_as_text_and_nothing_beside_them(tmp_path, served):
    run_dir = _run(tmp_path / "runs", "hot")
    view = served(Catalog([run_dir]))
    status, kind, body = view.get("/" + site.log_file("hot", "Demo-1", "b", "runner.out"))
    assert (status, body) == (200, LOG) and kind.startswith("text/plain")

    logs = "/runs/hot/logs"
    for path in (
        f"{logs}/%2e%2e/%2e%2e/secret.txt",
        f"{logs}/%2e%2e/%2e%2e/secret.txt.txt",
        f"{logs}/../../secret.txt.txt",
        f"{logs}/%2e%2e/./{STORE_FILE}.txt",
        f"{logs}/%2e%2e/%2e%2e/%2e%2e/secret.txt",
        f"{logs}/Demo-1/%2e%2e/%2e%2e/secret.txt",
        f"{logs}/Demo-1/b/..%2f..%2f..%2f..%2fsecret.txt",
        f"{logs}/Demo-1/b/%2e%2e.txt",
        f"{logs}/Demo-1/b/passwd.txt",
        f"{logs}/Demo-1/b/secret.txt",
        f"{logs}/Demo-1/b/store.txt",
        f"{logs}/Demo-1/up/secret.txt",
        f"{logs}/Demo-1/b/runner.out",
        f"{logs}/Demo-1/b/%2fetc%2fpasswd.txt",
        f"{logs}/%2e/b/runner.out.txt",
    ):
        status, _, body = view.get(path)
        assert status == 404, path
        assert "secret" not in body and "root:" not in body and "SQLite" not in body, path

    page = view.get("/" + site.bug_page("hot", "Demo-1"))[2]
    assert "runner.out" in page and "passwd" not in page and ">secret<" not in page  # links are not logs


def test_a_request_to_another_host_name_is_refused(tmp_path, served):
    view = served(Catalog([_run(tmp_path / "runs", "hot")]))
    port = view.httpd.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
        assert view.get("/", host)[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", f"localhost.evil:{port}"):
        status, _, body = view.get("/" + site.log_file("hot", "Demo-1", "b", "runner.out"), host)
        assert status == 403 and LOG not in body, host
        assert view.get("/", host)[0] == 403, host


def test_a_viewer_on_every_address_answers_addresses_but_not_names():
    assert host_allowed("192.168.1.7:7575", "0.0.0.0") and host_allowed("[fe80::1]:7575", "::")
    assert not host_allowed("attacker.example:7575", "0.0.0.0") and not host_allowed("192.168.1.7", "127.0.0.1")
    assert host_allowed("box.lan:7575", "box.lan") and not host_allowed("box.lan.evil:7575", "box.lan")


def test_a_run_given_as_a_relative_path_is_served(tmp_path, served, monkeypatch):
    _run(tmp_path / "runs", "hot")
    monkeypatch.chdir(tmp_path)
    view = served(Catalog([Path("runs/hot")]))
    assert view.get("/" + site.log_file("hot", "Demo-1", "b", "runner.out"))[:3:2] == (200, LOG)
    monkeypatch.chdir(tmp_path / "runs")
    view = served(Catalog.from_runs_dir(Path(".")))
    assert view.get("/" + site.log_file("hot", "Demo-1", "b", "runner.out"))[:3:2] == (200, LOG)


def test_a_run_that_disappears_or_is_damaged_is_shown_as_such_and_the_others_served(tmp_path, served):
    runs = tmp_path / "runs"
    hot, broken = _run(runs, "hot"), build_run(runs / "broken")
    build_run(runs / "cold")
    store = broken / STORE_FILE
    store.write_bytes(store.read_bytes()[:3000])  # truncated mid-page: a damaged store
    view = served(Catalog.from_runs_dir(runs))  # one damaged run among several does not keep it from starting

    status, _, index = view.get("/")
    assert status == 200 and 'data-run="hot"' in index and 'data-run="cold"' in index
    assert 'data-broken-run="broken"' in index and "damaged or not an SQLite database" in index
    assert view.get("/" + site.run_page("broken"))[0] == 503

    shutil.rmtree(hot)
    status, _, index = view.get("/")
    assert status == 200 and 'data-broken-run="hot"' in index and 'data-run="cold"' in index
    status, kind, body = view.get("/" + site.bug_page("hot", "Demo-1"))
    assert status == 503 and "is not a run directory" in body and kind.startswith("text/plain")
    assert view.get("/" + site.bug_page("cold", "Demo-1"))[0] == 200
    assert view.get("/" + site.log_file("hot", "Demo-1", "b", "runner.out"))[0] == 404


def test_the_export_copies_no_links_target_and_writes_logs_as_text(tmp_path):
    run_dir = _run(tmp_path / "runs", "hot")
    (run_dir / ARTIFACTS / "Demo-1" / "b" / "stderr").write_text("<html><script>alert(1)</script>")
    out = tmp_path / "export"
    result = CliRunner().invoke(cli, ["view", "--run", str(run_dir), "--export", str(out)])
    assert result.exit_code == 0, result.output

    logs = out / site.logs_folder("hot")
    assert sorted(str(p.relative_to(logs)) for p in logs.rglob("*") if p.is_file()) == [
        "Demo-1/b/runner.out.txt",
        "Demo-1/b/stderr.txt",
    ]
    assert (logs / "Demo-1/b/runner.out.txt").read_text() == LOG
    assert not any(p.is_symlink() for p in out.rglob("*"))
    for file in out.rglob("*"):
        if file.is_file():
            text = file.read_bytes()
            assert SECRET.encode() not in text and b"root:x:0:0" not in text and not text.startswith(b"SQLite"), file
    assert os.path.basename(site.log_file("hot", "Demo-1", "b", "stderr")) == "stderr.txt"
