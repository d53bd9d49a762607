"""Tries to write outside its sandbox: beside itself, in the home folder and in /tmp."""
import os

written = []
for path in [
    os.path.join(os.path.dirname(__file__), "escaped.txt"),
    os.path.expanduser("~/refgraph-hostile-escaped.txt"),
    "/root/refgraph-hostile-escaped.txt",
    "/tmp/refgraph-hostile-escaped.txt",
]:
    try:
        with open(path, "w") as f:
            f.write("escaped")
        written.append(path)
    except OSError:
        pass
globals()["escape_tried"] = lambda: written
