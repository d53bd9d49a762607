"""Loops forever at import."""
while True:
    pass
globals()["never"] = None
