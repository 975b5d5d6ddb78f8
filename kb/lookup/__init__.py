"""Look-ups outside this process: upstream issue trackers, off unless configured."""
