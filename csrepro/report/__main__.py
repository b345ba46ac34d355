"""``python -m csrepro.report``: the command line over csrepro.report.build, whose docstring is its help.

It parses the arguments, runs the mode they name and turns an error into one line on stderr,
``report error: ...``, and the exit status: 2 for a usage error, a missing or invalid config or an
unusable ``--out``, else 1 (``--debug`` or HYDRA_FULL_ERROR=1: the traceback instead).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path

from csrepro.config import ConfigError, compose
from csrepro.provenance import REPO_ROOT, Provenance, git_commit
from csrepro.report import build
from csrepro.report.build import ReportError, UsageError
from csrepro.store import folder_problem


def _complain(err: Exception, debug: bool) -> None:
    """``err`` as one line on stderr, ``report error: ...``; types other than the report's known errors are named,
    with a --debug hint. ``debug``: raise it instead (the traceback)."""
    if debug:
        raise err
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
    if not isinstance(err, (ReportError, OSError, ValueError)):
        text = f"{type(err).__name__}: {text} (unexpected; rerun with --debug for the traceback)"
    print(f"report error: {text}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors as one line, ``report error: ...``, and exit status 2."""

    def error(self, message: str):
        print(f"report error: {message} (python -m csrepro.report --help lists the options)", file=sys.stderr)
        sys.exit(2)


def main(argv=None) -> int:
    """Entry point of ``python -m csrepro.report``: 0 on success; after a one-line error on stderr, 2 for a
    missing or invalid config (as ``python -m csrepro.run``), else 1."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _Parser(prog="python -m csrepro.report", description=build.__doc__,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("args", nargs="*", metavar="EXP | key=value")
    parser.add_argument("--all", action="store_true",
                        help="report every conf/exp/*.yaml that has a store and write FIDELITY.md")
    parser.add_argument("--fidelity", action="store_true",
                        help="write FIDELITY.md from each experiment's existing comparison.csv (no stores needed)")
    parser.add_argument("--site", action="store_true",
                        help="build the static results website <results.root>/site/ (with --out DIR: DIR/site/) "
                             "from each experiment's committed comparison.csv, run_info.json, tables and figures, "
                             "the papers' NOTES.md and results/leaderboard/ (no stores needed)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing report made from more trials (or a full-scale one with a "
                             "partial one), and FIDELITY.md when it would drop an experiment")
    parser.add_argument("--out", metavar="DIR", type=Path,
                        help="write reports to DIR/<exp.name>/ and FIDELITY.md to DIR (stores are still read "
                             "from results.root)")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    parser.add_argument("--conf-dir", default=REPO_ROOT / "conf",
                        help="Hydra config folder holding config.yaml and exp/, composed as the runner composes "
                             "conf/ (default: %(default)s)")
    parser.add_argument("--experiments-dir", default=REPO_ROOT / "experiments",
                        help="folder of <paper>/published.csv (default: %(default)s)")
    ns = parser.parse_intermixed_args(argv)
    overrides = [a for a in ns.args if "=" in a or a.startswith("~")]  # ~key deletes a key, as in the runner
    names = [a for a in ns.args if a not in overrides]
    modes = ns.all + ns.fidelity + ns.site
    if bool(modes) == bool(names) or len(names) > 1 or modes > 1:
        parser.error(f"give exactly one experiment name, --all, --fidelity or --site (got names {names}, "
                     f"--all={ns.all}, --fidelity={ns.fidelity}, --site={ns.site})")
    prov = Provenance(shlex.join(["python", "-m", "csrepro.report", *argv]),
                      datetime.now(timezone.utc).isoformat(timespec="seconds"), git_commit())
    debug = ns.debug or os.environ.get("HYDRA_FULL_ERROR") == "1"
    try:
        return _run(ns, names, overrides, prov, debug)
    except Exception as err:
        _complain(err, debug)
        return 2 if isinstance(err, (ConfigError, UsageError)) else 1


def _run(ns, names: list[str], overrides: list[str], prov: Provenance, debug: bool) -> int:
    """The mode the arguments name (csrepro.report.build); its exit status."""
    if ns.out is not None and (why := folder_problem(ns.out)):
        raise UsageError(f"--out {ns.out}: {why}; give a writable folder (nothing was written)")
    options = {"conf_dir": ns.conf_dir, "force": ns.force, "out": ns.out, "overrides": overrides}
    if names:
        build.report_experiment(names[0], compose(names[0], overrides, conf_dir=ns.conf_dir), ns.experiments_dir,
                                prov, **options)
        return 0
    cfgs, root = build.paper_experiments(ns.conf_dir, overrides)
    dest = Path(ns.out) if ns.out is not None else root
    if ns.site:
        build.write_site(cfgs, root, ns.experiments_dir, dest / "site", prov)
    elif ns.fidelity:
        build.write_committed_fidelity(cfgs, root, dest / "FIDELITY.md", prov, ns.force, ns.experiments_dir)
    elif not build.report_all(cfgs, dest / "FIDELITY.md", ns.experiments_dir, prov,
                              lambda err: _complain(err, debug), **options):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
