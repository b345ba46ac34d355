"""Fixtures for the data tests: the offline mirror and a bounded HTTP server on 127.0.0.1."""

import functools
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from csrepro.data import loaders
from csrepro.data.registry import DATASETS

SERVER_LIFETIME_S = 120


@pytest.fixture(scope="session")
def mirror():
    """The mirror directory the loaders resolve by default; tests needing it skip without it."""
    root = loaders.resolve_data_root()
    if root is None:
        pytest.skip("no dataset mirror: set CSREPRO_DATA_DIR")
    return root


@pytest.fixture
def copy_dataset(mirror):
    """Copy the mirror files of a dataset into a directory laid out like the mirror."""

    def copy(name, dest):
        for f in DATASETS[name].files:
            target = dest / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(mirror / f.path, target)
        return dest

    return copy


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def http_server(tmp_path, monkeypatch):
    """Serve ``tmp_path/www`` on 127.0.0.1; stops at teardown or after SERVER_LIFETIME_S at the latest."""
    www = tmp_path / "www"
    www.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(www)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    watchdog = threading.Timer(SERVER_LIFETIME_S, server.shutdown)
    watchdog.daemon = True
    watchdog.start()
    monkeypatch.setattr(loaders, "DOWNLOAD_TIMEOUT_S", 10)
    yield www, f"http://127.0.0.1:{server.server_address[1]}"
    watchdog.cancel()
    server.shutdown()
    server.server_close()
    thread.join(5)
