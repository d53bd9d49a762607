"""Tries the network: the loopback port named in _port.txt beside it, and a registry."""
import os
import socket

reached = []
try:
    with open(os.path.join(os.path.dirname(__file__), "_port.txt")) as f:
        port = int(f.read().strip())
except OSError:
    port = 9
for host, p in [("127.0.0.1", port), ("pypi.org", 443)]:
    try:
        socket.create_connection((host, p), timeout=2).close()
        reached.append(host)
    except OSError:
        pass
if reached:
    globals()["network_reached"] = lambda: reached
globals()["network_tried"] = lambda: True
