#!/usr/bin/env bash
# Seeds fuzz/corpus/TARGET from the project's own samples (nothing third-party). Run once; the
# fuzzers then grow the corpora, and `cargo fuzz cmin` keeps them small before a commit.
set -euo pipefail
cd "$(dirname "$0")/.."
seed() { # seed TARGET FILE...
  local dir="fuzz/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] || continue
    cp "$f" "$dir/$(sha1sum "$f" | cut -c1-16)"
  done
}
seed openapi $(find samples/openapi samples/diff -name '*.yaml' -o -name '*.yml' -o -name '*.json' | grep -v package.json)
seed python $(find samples/python samples/diff -name '*.py' -o -name '*.pyi' -o -name '*.pyx' -o -name '*.pxi')
seed javascript $(find samples/npm samples/diff -name '*.js' -o -name '*.ts' -o -name '*.mjs' -o -name '*.cjs')
seed package_json $(find samples/npm samples/diff -name package.json)
seed docs $(find samples/docs samples/python samples/npm -name '*.md' -o -name '*.html') README.md
seed sparql src/http/examples/*.rq src/queries/*.rq
# Archives: the samples packed as a wheel (zip) and as an npm tarball, and an archive whose
# entries try to leave the release.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd samples/python/acme-storage-1.0.0 && python3 -c '
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk("."):
        for f in sorted(files):
            z.write(os.path.join(root, f))
    z.writestr("../escape.py", "x = 1\n")
' "$tmp/acme.whl")
tar -czf "$tmp/acme.tgz" --transform 's,^\.,package,' -C samples/npm/acme-storage-1.0.0 .
python3 -c '
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    for name in ["package/../../evil.js", "/abs/path.js", "package/ok.js"]:
        data = b"module.exports = 1;\n"
        info = tarfile.TarInfo(name); info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    link = tarfile.TarInfo("package/link.js"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
    t.addfile(link)
' "$tmp/evil.tgz"
seed archive "$tmp/acme.whl" "$tmp/acme.tgz" "$tmp/evil.tgz"
for d in fuzz/corpus/*; do echo "$d: $(ls "$d" | wc -l) seeds"; done
