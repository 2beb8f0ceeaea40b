#!/usr/bin/env python3
"""Progress file of a long build resumed over several runs:
`build_progress.py DB_DIR "DESCRIPTION" LOG...` prints a CSV (table, slots,
seconds as logged) of every table solved so far, in the order solved, under
a header line giving DESCRIPTION, the finished tables on disk and the
number of runs. The logs are the builds' stderr, oldest first."""
import glob
import os
import re
import sys

db, description, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
solved = re.compile(r"solved ([\d-]+(?: \+ [\d-]+)?) \((\d+) slots\) in ([\d.]+) s")
rows = []
for log in logs:
    rows += solved.findall(open(log, errors="replace").read())
tables = len(glob.glob(os.path.join(db, "**", "*.mbt"), recursive=True))
print(f"# {description}; finished tables on disk: {tables}; runs so far: {len(logs)}; "
      "seconds as logged")
print("table,slots,seconds")
for table, slots, secs in rows:
    print(f"{table},{slots},{secs}")
