#!/usr/bin/env python3
"""Rebuild the published Defects4J-NL2Fix bugs with the installed Defects4J and say, per project,
how many come out again and how alike they are: the paper's filter (one method body, nothing
else) and the wider one (``--keep-outside-changes``), line ranges and methods compared with
``nl2fix.dataset.diff`` (what ``nl2fix dataset diff`` prints), and the build's wall time.

Issue texts are read from the tracker cache only (``--offline``, the default here: the trackers
are often unreachable where Defects4J is); pass ``--online`` to fetch them.

    python3 scripts/rebuild_published.py --projects Cli,JxPath,Codec,Csv
    python3 scripts/rebuild_published.py --published ../shared/data/nl2fix_dataset.json --out /tmp/rebuilt
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import bench_results

from defects4j_adapter.cache import cache_dir
from defects4j_adapter.d4j.cli import Defects4J, locate
from nl2fix.dataset.build import Defects4JSources, bug_ids_of, build_dataset, write_dataset
from nl2fix.dataset.diff import Same, diff_datasets
from nl2fix.dataset.load import default_metadata_dir
from nl2fix.dataset.trackers import IssueFetcher

REPO = Path(__file__).resolve().parent.parent
GOOD = (Same.EQUAL, Same.NORMALISED)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--published", type=Path, default=REPO.parent / "shared" / "data" / "nl2fix_dataset.json")
    parser.add_argument(
        "--projects", default="", help="comma-separated (default: every published project Defects4J has)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the rebuilt JSON files (default: a temp dir)"
    )
    parser.add_argument("--online", action="store_true", help="fetch issue texts (default: the cache only)")
    bench_results.add_option(parser)
    args = parser.parse_args(argv)
    bench_results.start(args.results)
    if locate() is None:
        print("Defects4J is not installed here (no `defects4j` on PATH or under $D4J_HOME): nothing to rebuild")
        return 0
    if not args.published.is_file():
        print(f"no published dataset at {args.published}; pass --published FILE")
        return 2
    meta = default_metadata_dir()
    ids = bug_ids_of(args.published)
    have = {p.name for p in meta.iterdir() if (p / "active-bugs.csv").is_file()}
    published_projects = sorted({i.rsplit("-", 1)[0] for i in ids})
    projects = [p for p in (args.projects.split(",") if args.projects else published_projects) if p in have]
    out = args.out or Path(tempfile.mkdtemp(prefix="nl2fix-rebuilt-"))
    out.mkdir(parents=True, exist_ok=True)
    sources = Defects4JSources(Defects4J.find(), cache_dir())
    fetcher = IssueFetcher(cache_dir() / "issues", offline=not args.online)

    files, walls = {}, {}
    for name, wide in (("strict", False), ("wide", True)):
        start = time.monotonic()
        records, summary = build_dataset(meta, projects, sources, fetcher, ids=ids, keep_outside=wide)
        walls[name] = time.monotonic() - start
        files[name] = out / f"rebuilt-{name}.json"
        write_dataset(records, files[name])
        print(
            f"{name}: {len(summary.considered)} published bugs of {', '.join(projects)} "
            f"built in {walls[name]:.0f} s; "
            f"dropped: {', '.join(f'{r} {len(v)}' for r, v in summary.dropped.items()) or 'none'}"
        )

    diffs = {name: diff_datasets(args.published, path, set(projects)) for name, path in files.items()}
    print(
        f"\n{'project':12} {'published':>9} {'strict':>7} {'wide':>5} {'same range':>10} {'src same':>9} "
        f"{'fixed same':>10}"
    )
    totals: Counter = Counter()
    for project in projects + ["all"]:
        pairs = [p for p in diffs["wide"].pairs if project == "all" or p.bug_id.rsplit("-", 1)[0] == project]
        row = {
            "published": sum(
                1 for i in ids if project == "all" and i.rsplit("-", 1)[0] in projects or i.rsplit("-", 1)[0] == project
            ),
            "strict": sum(
                1 for p in diffs["strict"].pairs if project == "all" or p.bug_id.rsplit("-", 1)[0] == project
            ),
            "wide": len(pairs),
            "same range": sum(p.range == "same" for p in pairs),
            "src same": sum(p.fields["src"] in GOOD for p in pairs),
            "fixed same": sum(p.fields["fixed_src"] in GOOD for p in pairs),
        }
        totals.update(row)
        print(
            f"{project:12} {row['published']:>9} {row['strict']:>7} {row['wide']:>5} {row['same range']:>10} "
            f"{row['src same']:>9} {row['fixed same']:>10}"
        )
    print(
        "\nstrict: the paper's filter (the fix changes one method body and nothing else); wide: also fixes that "
        "change imports, fields or add methods (flagged fix_outside_method)."
    )
    print("differences (wide build):")
    for p in diffs["wide"].pairs:
        if p.range != "same" or any(p.fields[n] not in GOOD for n in ("src", "fixed_src")):
            print(
                f"  {p.bug_id}: range {p.range}; src {p.fields['src'].value}; fixed_src {p.fields['fixed_src'].value}"
            )
    for bug_id in diffs["wide"].only_a:
        print(f"  {bug_id}: not rebuilt (see the drop reasons above)")
    print(f"\nfiles: {files['strict']} {files['wide']}\ncompare: nl2fix dataset diff {args.published} {files['wide']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
