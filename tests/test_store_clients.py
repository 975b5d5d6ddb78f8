"""Client addresses in the feedback store, on a real SQLite file and the PostgreSQL the tests
start: one answer per address and guide, limits per address, and rankings by distinct addresses."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from kb.feedback.votes import RateLimited, VotingStore
from tests.conftest import all_rows

A, B, C = "198.51.100.7", "203.0.113.9", "2001:db8::5"


@pytest.fixture
def store(db_url: str, monkeypatch) -> Iterator[VotingStore]:
    monkeypatch.setenv("KB_VOTE_LIMIT", "3")
    monkeypatch.setenv("KB_COMMENT_LIMIT", "2")
    monkeypatch.setenv("KB_UNMATCHED_LIMIT", "2")
    with VotingStore(db_url, enabled=True) as s:
        yield s


def test_one_address_has_one_answer_per_guide(store: VotingStore, db_url: str) -> None:
    first = store.record_vote("nccl-timeout", True, [], "en", client=A)
    again = store.record_vote("nccl-timeout", False, ["x"], "zh", client=A)  # another tab, same address
    other = store.record_vote("nccl-timeout", True, [], "en", client=B)
    assert again == first and other != first
    rows = sorted(all_rows(db_url, "feedback"), key=lambda r: r.id)
    assert [(r.answer, r.ticked, r.lang) for r in rows] == [(False, "x", "zh"), (True, "", "en")]
    assert all(A not in str(r) and B not in str(r) for r in rows)  # a key is stored, never the address
    assert len({r.client for r in rows}) == 2


def test_votes_comments_and_queue_entries_are_limited_per_address(store: VotingStore, db_url: str) -> None:
    ids = [store.record_vote(f"guide-{n}", True, [], "en", client=A) for n in range(3)]
    with pytest.raises(RateLimited) as info:
        store.record_vote("guide-3", True, [], "en", client=A)
    assert info.value.what == "vote" and info.value.minutes >= 1
    assert store.record_vote("guide-0", False, [], "en", client=A) == ids[0]  # changing an answer is not a new one
    store.record_vote("guide-3", True, [], "en", client=B)  # another address has its own budget
    assert len(all_rows(db_url, "feedback")) == 4

    store.add_comment(ids[0], "first", client=A)
    store.add_comment(ids[1], "second", client=A)
    with pytest.raises(RateLimited):
        store.add_comment(ids[2], "third", client=A)
    assert sorted(filter(None, (r.comment for r in all_rows(db_url, "feedback")))) == ["first", "second"]

    store.record_unmatched("ValueError: one", "en", client=A)
    store.record_unmatched("ValueError: two", "en", client=A)
    with pytest.raises(RateLimited):
        store.record_unmatched("ValueError: three", "en", client=A)
    assert sorted(r.signature for r in store.top_unmatched()) == ["ValueError: one", "ValueError: two"]


def test_the_rankings_count_distinct_addresses(store: VotingStore, monkeypatch) -> None:
    monkeypatch.setenv("KB_VOTE_LIMIT", "0")
    monkeypatch.setenv("KB_UNMATCHED_LIMIT", "0")
    # One address answers "skewed" from many tabs; three addresses answer "popular" once each.
    for _ in range(10):
        store.record_vote("skewed", True, [], "en", client=A)
    for client in (A, B, C):
        store.record_vote("popular", True, [], "en", client=client)
    ranked = store.helpfulness()
    assert [(h.guide_id, h.addresses, h.answers) for h in ranked] == [("popular", 3, 3), ("skewed", 1, 1)]
    # The queue: one address sends an error 10 times, two addresses send another once each.
    for _ in range(10):
        store.record_unmatched("KeyError: flooded", "en", client=A)
    for client in (B, C):
        store.record_unmatched("KeyError: common", "en", client=client)
    rows = store.top_unmatched()
    assert [(r.signature, r.addresses, r.count) for r in rows] == [("KeyError: common", 2, 2), ("KeyError: flooded", 1, 10)]


def test_the_client_address_is_read_from_x_forwarded_for_only_behind_a_trusted_proxy() -> None:
    from kb.limits import ClientAddress
    behind = ClientAddress(["127.0.0.2"])
    assert behind.resolve("127.0.0.2", ["198.51.100.7"]) == "198.51.100.7"  # nginx said who it saw
    # What a client writes into the header itself comes first; nginx's hop is the last one.
    assert behind.resolve("127.0.0.2", ["10.9.9.9, 198.51.100.7"]) == "198.51.100.7"
    assert behind.resolve("203.0.113.9", ["10.9.9.9"]) == "203.0.113.9"  # not from the proxy: not believed
    assert ClientAddress([]).resolve("203.0.113.9", ["10.9.9.9"]) == "203.0.113.9"  # no proxy configured
