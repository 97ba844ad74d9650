"""Started by every Python process the suite runs while `pytest --clock-ahead DAYS` is in force
(tests/conftest.py puts this folder first on PYTHONPATH): the process's clock runs DAYS ahead, as
the suite's own does, so a server or CLI child agrees with the test about what time it is."""

import os

days = os.environ.get("TESTS_CLOCK_AHEAD_DAYS")
if days:
    try:
        import time_machine
    except ImportError:  # a virtualenv of its own (the mcp 1.x client): it keeps the real clock
        pass
    else:
        from datetime import datetime, timedelta, timezone

        time_machine.travel(datetime.now(timezone.utc) + timedelta(days=int(days)), tick=True).start()
