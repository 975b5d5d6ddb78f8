"""A live look-up of an upstream project's GitHub issues for the root error line.

When no guide exists yet, the reports other people filed are what a user looks for; when one
does, a newer report may say more. Off unless configured (`KB_GITHUB_LOOKUP=1`): it sends the
search words of the root error (kb.engine.upstream.search_terms: redacted, no paths, values or
names) to GitHub, which a deployment must choose to do.

- GitHub's search API (`GET /search/issues`), at most `MAX_REPORTS` reports, best match first.
- For a closed report, its timeline (`GET /repos/{repo}/issues/{n}/timeline`) names the pull
  request that closed it: the last merged pull request of the same repository that referenced
  the issue before it was closed.
- A token from `KB_GITHUB_TOKEN` raises the API's limit from 10 searches a minute to 30.
- Every request has a timeout; a failure (timeout, refused, rate limit, bad JSON) is a short
  reason, never an exception, and is cached briefly so a failing API is not asked on every run.
- Answers are cached in memory per (repository, words) for `ttl` seconds, bounded in size.
- Nothing from GitHub becomes markup: titles are plain text for the caller to show as such, and
  a link is kept only when it points into the repository searched on github.com.
"""
from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from kb import config

__all__ = ["Lookup", "Found", "PullRequest", "Report", "from_environment"]

MAX_REPORTS = 5
MAX_TIMELINES = 3  # closed reports whose closing pull request is looked up: one request each
MAX_TITLE = 300
MAX_BODY = 2_000_000  # bytes of one API answer read: a search page is ~100 KB
_SAFE_TITLE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


@dataclass(frozen=True)
class PullRequest:
    number: int
    title: str
    url: str


@dataclass(frozen=True)
class Report:
    """One upstream issue that matched the search."""

    repo: str
    number: int
    title: str
    state: str  # "open" or "closed"
    url: str
    closed_by: PullRequest | None = None
    comments: int = 0
    updated: str = ""  # ISO date of the last update

    @property
    def ref(self) -> str:
        return f"{self.repo}#{self.number}"


@dataclass(frozen=True)
class Found:
    """What the look-up found, or why it found nothing (`error`); `cached` when no request was made."""

    repo: str
    query: str
    reports: tuple[Report, ...] = ()
    error: str | None = None
    cached: bool = False


@dataclass
class Lookup:
    """A GitHub issue look-up with a timeout and a cache. `api` is the API's base URL (a local
    server in the tests)."""

    api: str = "https://api.github.com"
    token: str | None = None
    timeout: float = 4.0
    ttl: float = 3600.0
    error_ttl: float = 120.0
    max_entries: int = 512
    _cache: OrderedDict[tuple[str, str], tuple[float, Found]] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def search(self, repo: str, query: str) -> Found:
        """The reports of `repo` that match `query` (search words, already cleaned and redacted)."""
        key = (repo, query)
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] > now:
                self._cache.move_to_end(key)
                f = hit[1]
                return Found(f.repo, f.query, f.reports, f.error, cached=True)
        found = self._search(repo, query)
        with self._lock:
            self._cache[key] = (now + (self.error_ttl if found.error else self.ttl), found)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return found

    def _search(self, repo: str, query: str) -> Found:
        if not query.strip():
            return Found(repo, query, error="no words to search for")
        params = urlencode({"q": f"repo:{repo} is:issue {query}", "per_page": MAX_REPORTS})
        data, error = self._get(f"/search/issues?{params}")
        if error is not None:
            return Found(repo, query, error=error)
        items = data.get("items") if isinstance(data, dict) else None
        if not isinstance(items, list):
            return Found(repo, query, error="GitHub's answer has no list of issues")
        reports = [r for r in (_report(repo, item) for item in items[:MAX_REPORTS]) if r is not None]
        out, timelines = [], 0
        for r in reports:
            if r.state == "closed" and timelines < MAX_TIMELINES:
                timelines += 1
                r = Report(r.repo, r.number, r.title, r.state, r.url, self._closed_by(repo, r.number), r.comments, r.updated)
            out.append(r)
        return Found(repo, query, tuple(out))

    def _closed_by(self, repo: str, number: int) -> PullRequest | None:
        data, error = self._get(f"/repos/{quote(repo, safe='/')}/issues/{number}/timeline?per_page=100")
        if error is not None or not isinstance(data, list):
            return None  # the report stands without it
        closed_at = max((e.get("created_at") or "" for e in data if isinstance(e, dict) and e.get("event") == "closed"), default="")
        best: tuple[str, PullRequest] | None = None
        for event in data:
            if not isinstance(event, dict) or event.get("event") != "cross-referenced":
                continue
            issue = (event.get("source") or {}).get("issue") or {}
            pull = issue.get("pull_request") or {}
            when = event.get("created_at") or ""
            if not pull.get("merged_at") or (closed_at and when > closed_at):
                continue
            pr = _pull(repo, issue)
            if pr is not None and (best is None or when >= best[0]):
                best = (when, pr)
        return best[1] if best else None

    def _get(self, path: str) -> tuple[object, str | None]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                   "User-Agent": "ml-infra-kb"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.api.rstrip("/") + path, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 (https or a test's loopback)
                body = response.read(MAX_BODY + 1)
        except urllib.error.HTTPError as exc:
            if exc.code in (403, 429) and exc.headers.get("X-RateLimit-Remaining") == "0":
                return None, "GitHub's rate limit is reached; try again later or set KB_GITHUB_TOKEN"
            return None, f"GitHub answered HTTP {exc.code}"
        except (TimeoutError, OSError) as exc:  # URLError is an OSError; a read timeout is a TimeoutError
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                return None, f"GitHub did not answer within {self.timeout:g} s"
            return None, "GitHub could not be reached"
        if len(body) > MAX_BODY:
            return None, "GitHub's answer is too large"
        try:
            return json.loads(body), None
        except ValueError:
            return None, "GitHub's answer is not JSON"


def _plain(text: object) -> str:
    return _SAFE_TITLE.sub(" ", str(text or "")).strip()[:MAX_TITLE]


def _own_url(repo: str, url: object, kind: str, number: int) -> str | None:
    """The issue's or pull request's page, only where it is the one in `repo` on github.com."""
    expected = f"https://github.com/{repo}/{kind}/{number}"
    return expected if isinstance(url, str) and url.lower() == expected.lower() else None


def _report(repo: str, item: object) -> Report | None:
    if not isinstance(item, dict) or item.get("pull_request") or not isinstance(item.get("number"), int):
        return None
    url = _own_url(repo, item.get("html_url"), "issues", item["number"])
    state = item.get("state")
    if url is None or state not in ("open", "closed"):
        return None
    said = item.get("comments")
    comments = said if isinstance(said, int) else 0
    return Report(repo, item["number"], _plain(item.get("title")), state, url, None, comments,
                  str(item.get("updated_at") or "")[:10])


def _pull(repo: str, issue: dict) -> PullRequest | None:
    number = issue.get("number")
    if not isinstance(number, int):
        return None
    url = _own_url(repo, issue.get("html_url"), "pull", number)
    return PullRequest(number, _plain(issue.get("title")), url) if url else None


def from_environment(variables: dict[str, str] | None = None) -> Lookup | None:
    """The look-up a deployment configured (kb.config's KB_GITHUB_* settings, from `variables`,
    by default the process's environment), or None when it is off (the default). A timeout
    that is not a number is the default, not a failure: the look-up is an extra and must not
    stop the page."""
    try:
        on = config.get("KB_GITHUB_LOOKUP", variables)
    except config.SettingError:
        on = False
    if not on:
        return None
    try:
        timeout = float(config.get("KB_GITHUB_TIMEOUT", variables))
    except config.SettingError:
        timeout = float(str(config.SETTINGS["KB_GITHUB_TIMEOUT"].default))
    token = config.get("KB_GITHUB_TOKEN", variables) or None
    return Lookup(api=str(config.get("KB_GITHUB_API_URL", variables)), token=token, timeout=max(0.1, min(timeout, 30.0)))
