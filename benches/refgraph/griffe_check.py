#!/usr/bin/env python3
"""What `griffe check` does, on two unpacked releases instead of two git refs.

  python griffe_check.py PACKAGE OLD_SITE NEW_SITE

griffe's CLI `check` loads the old and the new package with resolve_aliases=True and
resolve_external=None, then lists griffe.find_breaking_changes(old, new) (griffecli's
check()); it takes the two versions from git worktrees or from PyPI downloads, which would
add git and network time. This script makes the same calls on two folders made by
`pip install --target`. Prints {"load": s, "check": s, "breakages": n} as JSON.
"""
import json
import sys
import time

import griffe

package, old_site, new_site = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.perf_counter()
old = griffe.load(package, search_paths=[old_site], resolve_aliases=True, resolve_external=None)
new = griffe.load(package, search_paths=[new_site], resolve_aliases=True, resolve_external=None)
loaded = time.perf_counter()
breakages = list(griffe.find_breaking_changes(old, new))
done = time.perf_counter()
print(json.dumps({"load": loaded - started, "check": done - loaded, "breakages": len(breakages)}))
