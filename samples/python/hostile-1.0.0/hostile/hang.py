"""Never returns from import."""
import time

time.sleep(10**6)
globals()["never"] = None
