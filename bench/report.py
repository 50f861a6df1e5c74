#!/usr/bin/env python3
"""Turns a hyperfine JSON export into a markdown table of medians and ratios to a baseline,
or (with --readme) replaces the table between <!-- bench:NAME --> markers in README.md."""
import json
import platform
import re
import subprocess
import sys
import time


def table(path, baseline):
    results = json.load(open(path))["results"]
    base = next((r["median"] for r in results if r["command"] == baseline), None)
    kernel = platform.release()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {kernel}, {subprocess.getoutput('nproc')} cores; "
        f"hyperfine median of {len(results[0]['times'])} runs each, all in one run.",
        "",
        "| command | median | mean ± σ | vs bwrap |",
        "|---|---:|---:|---:|",
    ]
    for r in results:
        ratio = f"{r['median'] / base:.2f}x" if base else "n/a"
        lines.append(
            f"| {r['command']} | {r['median'] * 1000:.2f} ms | "
            f"{r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f} ms | {ratio} |")
    return "\n".join(lines) + "\n"


def update_readme(readme, name, md_path):
    text = open(readme).read()
    body = open(md_path).read()
    pattern = re.compile(rf"(<!-- bench:{name} -->\n).*?(<!-- /bench:{name} -->)", re.S)
    if not pattern.search(text):
        sys.exit(f"report.py: no <!-- bench:{name} --> markers in {readme}")
    text = pattern.sub(lambda m: m.group(1) + body + m.group(2), text)
    open(readme, "w").write(text)


if __name__ == "__main__":
    if sys.argv[1] == "--readme":
        update_readme(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.stdout.write(table(sys.argv[1], sys.argv[2]))
