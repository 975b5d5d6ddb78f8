import os
import time

open(os.environ.get("PIDFILE", "/tmp/w1_worker.pid"), "w").write(str(os.getpid()))
time.sleep(float(os.environ.get("SLEEP", "30")))
