"""The address of the visitor of this session, for the per-address limits (kb.feedback.votes).

Streamlit gives the websocket's peer (None for 127.0.0.1 and ::1) and the request's headers.
X-Forwarded-For is believed only when the peer is a trusted proxy (KB_API_TRUSTED_PROXIES, the
setting `kb serve` reads), by the same rule as `kb serve`'s rate limit (kb.limits).
"""
from __future__ import annotations

import streamlit as st

from components.once import once
from kb import config
from kb.limits import ClientAddress

LOCAL = "127.0.0.1"  # what Streamlit reports as None: a browser on this machine


@once
def _resolver(trusted: tuple[str, ...]) -> ClientAddress:
    return ClientAddress(trusted)


def client_address() -> str:
    # Only strings are taken: outside a browser session (AppTest's stand-in runtime) these are
    # not the connection's, and such a session is a local one.
    ip = st.context.ip_address
    peer = ip if isinstance(ip, str) and ip else LOCAL
    headers = st.context.headers
    values = headers.get_all("X-Forwarded-For") if headers is not None else []
    forwarded = [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
    return _resolver(tuple(config.get("KB_API_TRUSTED_PROXIES"))).resolve(peer, forwarded)
