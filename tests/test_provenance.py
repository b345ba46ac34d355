"""Provenance: the commit of the code, "-dirty" only when tracked files outside results/ differ."""

import subprocess

from csrepro.provenance import git_commit


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_results_written_into_the_tree_do_not_make_it_dirty(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "results" / "exp").mkdir(parents=True)
    (tmp_path / "results" / "exp" / "REPORT.md").write_text("old\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "init")
    head = git(tmp_path, "rev-parse", "--short", "HEAD")
    assert git_commit(tmp_path) == head
    (tmp_path / "results" / "exp" / "REPORT.md").write_text("new\n")
    (tmp_path / "untracked.py").write_text("")
    assert git_commit(tmp_path) == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_commit(tmp_path) == f"{head}-dirty"


def test_outside_git_the_commit_is_unknown(tmp_path):
    assert git_commit(tmp_path / "nowhere") == "unknown"
