"""Things built once per process and shared by every session: the index, the feedback store,
the upstream look-up.

Not st.cache_resource: any visitor can send Streamlit's `clear_cache` message (the app menu's
"Clear cache", or a websocket message written by hand), and Streamlit then drops every
cache_resource of the process, so the next session would rebuild the index (seconds at 50,000
guides) and reopen the store, for everyone. Nothing a browser sends reaches these.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class Once(Generic[T]):
    """`build(key)` called once per key, whatever the number of threads asking at the same time."""

    def __init__(self, build: Callable[..., T]) -> None:
        self._build = build
        self._made: dict[Hashable, T] = {}
        self._lock = threading.Lock()

    def __call__(self, *key: Hashable) -> T:
        try:
            return self._made[key]
        except KeyError:
            pass
        with self._lock:  # one build, even when many sessions start together
            if key not in self._made:
                self._made[key] = self._build(*key)
            return self._made[key]

    def clear(self) -> None:
        """Forget what was built (tests, after changing the guides directory). No page calls it."""
        with self._lock:
            self._made.clear()


def once(build: Callable[..., T]) -> Once[T]:
    return Once(build)
