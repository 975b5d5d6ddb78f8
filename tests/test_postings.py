"""The likely and similar tiers' candidates from the inverted index (kb.engine.postings) are the
ones scoring every posting gives, on the real guides and the real pastes."""
import json
import math
from collections import Counter

import pytest

from kb.engine.index import load_index
from kb.engine.parse import parse
from kb.engine.roots import root_error
from kb.engine.similar import query_words
from kb.engine.textsim import mask, strip_boilerplate, words
from tests.conftest import ROOT

SOURCES = ["tests/data/wide/cases.jsonl", "tests/data/heldout.jsonl", "tests/data/cases.jsonl", "tests/data/traffic/cases.jsonl"]


@pytest.fixture(scope="module")
def index():
    return load_index()


@pytest.fixture(scope="module")
def queries(index):
    """Both tiers' queries for every real paste: the similar tier's words, the likely tier's root error words."""
    out = []
    for name in SOURCES:
        for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
            paste = parse(json.loads(line)["text"])
            root = root_error(paste)
            out.append(query_words(paste, root))
            if root is not None:
                out.append(words(strip_boilerplate(mask(root.text), index.boilerplate)))
    return [q for q in out if q]


@pytest.fixture(scope="module")
def plain(index):
    return index.postings, index.doc_len, index.avg_len


def every_posting(index, plain, query):
    """The scores as the tiers computed them before: every posting of every query word."""
    postings, doc_len, avg = plain
    scores: Counter = Counter()
    for term in set(query):
        plist = postings.get(term) or []
        idf = index.idf(term, len(plist))
        for gid, tf in plist:
            scores[gid] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * doc_len[gid] / avg))
    return scores


def same_top(got, scores, m):
    """`got` is a best-m list of `scores`: the same scores, and nothing left out scores more
    (guides of equal score may come in any order, as they did)."""
    assert len(got) == min(m, len(scores))
    for gid, s in got:
        assert math.isclose(s, scores[gid], rel_tol=1e-9, abs_tol=1e-9), gid
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    if got:
        kept = {g for g, _ in got}
        assert max((s for g, s in scores.items() if g not in kept), default=-1.0) <= got[-1][1] + 1e-9


@pytest.mark.parametrize("budget", [None, 1])  # 1: the bound is tried after each word, the pruned path always runs
def test_candidates_are_those_of_scoring_every_posting(index, plain, queries, budget):
    assert len(queries) > 1000
    for q in queries:
        scores = every_posting(index, plain, q)
        for m in (3, 9, 40):
            got = index.bm25.top(q, m) if budget is None else index.bm25.top(q, m, budget)
            same_top(got, scores, m)


def test_holds_and_df_agree_with_the_posting_lists(index, plain):
    postings = plain[0]
    for term in list(postings)[::50]:
        holders = {g for g, _ in postings[term]}
        assert index.bm25.df(term) == len(holders)
        for gid in list(index.guides)[::25]:
            assert index.bm25.holds(term, gid) == (gid in holders)
    assert index.bm25.df("no-such-word-anywhere") == 0 and not index.bm25.holds("no-such-word-anywhere", next(iter(index.guides)))


def test_a_query_of_unknown_words_finds_nothing(index):
    assert index.similar(["zzqqxx", "yyqqzz"]) == [] and index.bm25.top([], 5) == []
