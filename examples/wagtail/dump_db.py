"""Print every row of every table of a sqlite database, sorted, and a digest: python3 dump_db.py DB.

Two dumps that are equal mean the database is row-identical. ``--digest`` prints only the
SHA-256 of the dump and of the file's bytes.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys


def dump(path: str) -> str:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    lines = []
    for table in tables:
        rows = sorted(repr(r) for r in conn.execute(f'SELECT * FROM "{table}"'))
        lines.append(f"== {table} ({len(rows)} rows)")
        lines.extend(rows)
    conn.close()
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if a != "--digest"]
    if len(args) != 1:
        print("usage: dump_db.py [--digest] DB", file=sys.stderr)
        return 2
    text = dump(args[0])
    if "--digest" in argv:
        with open(args[0], "rb") as f:
            file_digest = hashlib.sha256(f.read()).hexdigest()
        print(f"rows {hashlib.sha256(text.encode()).hexdigest()}  file {file_digest}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
