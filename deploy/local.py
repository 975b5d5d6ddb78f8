"""Run the tested deployment on this machine: PostgreSQL, two replicas (each the app and the JSON
API, `kb serve`) and nginx, on loopback.

    python deploy/local.py start STATE_DIR     # prints {"url", "replicas", "apis", "database_url"} as JSON
    python deploy/local.py stop-replica STATE_DIR N / start-replica STATE_DIR N
    python deploy/local.py stop STATE_DIR

Everything lives in STATE_DIR (data, sockets, logs, pids); every port is a free one on
127.0.0.1, and nothing listens elsewhere. PostgreSQL and nginx are Debian's packages
(scripts/install --dev installs them). The replicas share the database through
KB_DATABASE_URL; nginx (deploy/nginx.conf) keeps each client on one replica, upgrades the
websocket, sends /v1/ to the API processes and adds the security headers. Every wait is bounded.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPLICAS = 2
PG_BIN_DIRS = ("/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin")
START_TIMEOUT = 90  # seconds for any one service to answer
# nginx reaches the API from this address, the one address the API believes X-Forwarded-For
# from: on loopback every client is 127.0.0.1 too, and must not pass for the proxy.
PROXY_ADDRESS = "127.0.0.2"
# The host names the site answers to (nginx's server_name); any other Host header is refused.
HOSTS = ("127.0.0.1", "localhost")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_user() -> pwd.struct_passwd | None:
    """Root cannot run PostgreSQL, and nginx's workers should not be root: use `postgres` / `nobody`."""
    return pwd.getpwnam("postgres") if os.geteuid() == 0 else None


def _as(user: pwd.struct_passwd | None, *command: object) -> list[str]:
    args = [str(c) for c in command]
    return ["runuser", "-u", user.pw_name, "--", *args] if user else args


def _run(args: list[str], timeout: float = 120) -> None:
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd="/")
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}{done.stderr}")


def pg_bin() -> Path:
    for folder in (os.environ.get("PG_BIN", ""), *PG_BIN_DIRS):
        if folder and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    raise SystemExit("PostgreSQL server binaries not found; run: bash scripts/install --dev")


def start_postgres(state: Path) -> str:
    user, bin_dir, data = _server_user(), pg_bin(), state / "pg"
    data.mkdir(mode=0o700)
    if user:
        for path in (state, data):
            os.chown(path, user.pw_uid, user.pw_gid)
    _run(_as(user, bin_dir / "initdb", "-D", data, "-U", "kb", "--auth=trust", "--encoding=UTF8", "--no-sync"))
    port = free_port()
    options = f"-p {port} -k {state} -c listen_addresses=127.0.0.1"
    _run(_as(user, bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", state / "pg.log", "-w", "-t", START_TIMEOUT, "start"))
    _run(_as(user, bin_dir / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "kb", "kb"))
    return f"postgresql+psycopg://kb@127.0.0.1:{port}/kb"


def _spawn(args: list[str], log: Path, env: dict[str, str] | None = None) -> int:
    with log.open("ab") as out:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    return proc.pid


def _wait_http(url: str, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")
        time.sleep(0.3)


def start_replica(state: Path, n: int) -> None:
    info = _info(state)
    port = info["replicas"][n]
    # The app and the API believe X-Forwarded-For from nginx alone (the address it connects from).
    env = {**os.environ, "KB_DATABASE_URL": info["database_url"], "KB_CACHE_DIR": str(state / "kb-cache"),
           "KB_API_TRUSTED_PROXIES": PROXY_ADDRESS}
    pid = _spawn([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                  "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
                 state / f"replica-{n}.log", env)
    info["pids"][f"replica-{n}"] = pid
    # The same replica's API: `kb serve`, on the same database and index cache.
    api = info["apis"][n]
    info["pids"][f"api-{n}"] = _spawn([sys.executable, "-m", "kb", "serve", "--host", "127.0.0.1", "--port", str(api)],
                                      state / f"api-{n}.log", env)
    _save(state, info)
    _wait_http(f"http://127.0.0.1:{port}/_stcore/health")
    _wait_http(f"http://127.0.0.1:{api}/healthz")


def stop_replica(state: Path, n: int) -> None:
    info = _info(state)
    _terminate(info["pids"].pop(f"replica-{n}", None))
    _terminate(info["pids"].pop(f"api-{n}", None))
    _save(state, info)


def streamlit_inline_script_hashes() -> list[str]:
    """CSP hashes of the inline scripts in Streamlit's index.html (one sets window.prerenderReady)."""
    import streamlit
    html = (Path(streamlit.__file__).parent / "static" / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S)
    return [f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts]


def app_inline_script_hashes() -> list[str]:
    """The app's own inline script (components/phone.py runs it through st.html: on a phone, the
    scroll to the results), by the hash of its fixed text."""
    script = (ROOT / "components" / "scroll_to_results.js").read_text(encoding="utf-8")
    return [f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"]


def content_security_policy() -> str:
    return "; ".join([
        "default-src 'self'",
        # Streamlit's own scripts, its one inline script by hash, and WebAssembly (Arrow, which
        # carries the data of tables and charts); no eval, no script from elsewhere.
        # And the app's one inline script, by hash too.
        "script-src 'self' 'wasm-unsafe-eval' " + " ".join(streamlit_inline_script_hashes() + app_inline_script_hashes()),
        "style-src 'self' 'unsafe-inline'",  # Streamlit styles its widgets with CSS-in-JS
        # Not fonts.gstatic.com: Streamlit fetches a Material icon used as favicon from there,
        # which tells Google every visitor's address; without it the tab shows no icon.
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",  # the websocket and the API, on this origin only
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


def start_nginx(state: Path, port: int, replicas: list[int], apis: list[int]) -> int:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        raise SystemExit("nginx not found; run: bash scripts/install --dev")
    worker = pwd.getpwnam("nobody") if os.geteuid() == 0 else None
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (state / "nginx-tmp" / sub).mkdir(parents=True, exist_ok=True)
        if worker:
            os.chown(state / "nginx-tmp" / sub, worker.pw_uid, worker.pw_gid)
    conf = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    for name, value in {
        "STATE": str(state), "LISTEN": f"127.0.0.1:{port}", "CSP": content_security_policy(),
        "USER": f"user {worker.pw_name} nogroup;" if worker else "",
        # max_fails=0: a replica is never marked down for a while after one refused connection; a
        # replica that has just come back would otherwise be skipped, and with the other one stopped
        # nginx would answer 502 "no live upstreams" although a replica is up. A refused local
        # connection costs nothing; proxy_next_upstream passes the request on.
        "UPSTREAMS": "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in replicas),
        "API_UPSTREAMS": "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in apis),
        "PROXY_ADDRESS": PROXY_ADDRESS,
        "HOSTS": " ".join(HOSTS),
    }.items():
        conf = conf.replace(f"@@{name}@@", value)
    (state / "nginx.conf").write_text(conf, encoding="utf-8")
    _run([nginx, "-t", "-q", "-p", str(state), "-e", str(state / "nginx-error.log"), "-c", str(state / "nginx.conf")])
    return _spawn([nginx, "-p", str(state), "-e", str(state / "nginx-error.log"), "-c", str(state / "nginx.conf")],
                  state / "nginx.log")


def start(state: Path) -> dict:
    state.mkdir(parents=True, exist_ok=True)
    state = state.resolve()
    state.chmod(0o755)  # the postgres user and nginx's workers work in here too
    info: dict = {"pids": {}, "replicas": [free_port() for _ in range(REPLICAS)], "apis": [free_port() for _ in range(REPLICAS)]}
    _save(state, info)
    try:
        info["database_url"] = start_postgres(state)
        _save(state, info)
        for n in range(REPLICAS):
            start_replica(state, n)
        info = _info(state)
        port = free_port()
        info["pids"]["nginx"] = start_nginx(state, port, info["replicas"], info["apis"])
        info["url"] = f"http://127.0.0.1:{port}"
        _save(state, info)
        _wait_http(info["url"] + "/_stcore/health")
    except BaseException:
        stop(state)
        raise
    return info


def stop(state: Path) -> None:
    info = _info(state) if (state / "deploy.json").exists() else {"pids": {}}
    for name in sorted(info["pids"], key=lambda n: n != "nginx"):  # nginx first: no new requests
        _terminate(info["pids"][name])
    data = state / "pg"
    if (data / "postmaster.pid").exists():
        subprocess.run(_as(_server_user(), pg_bin() / "pg_ctl", "-D", data, "-m", "fast", "-w", "-t", "30", "stop"),
                       capture_output=True, timeout=60, cwd="/")
    info["pids"] = {}
    _save(state, info)


def _terminate(pid: int | None, grace: float = 10) -> None:
    """SIGTERM to the process group we started, then SIGKILL after `grace` seconds."""
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:  # not our child (another command started it): poll its group
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.1)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _info(state: Path) -> dict:
    return json.loads((state / "deploy.json").read_text(encoding="utf-8"))


def _save(state: Path, info: dict) -> None:
    (state / "deploy.json").write_text(json.dumps(info), encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("start", "stop", "stop-replica", "start-replica"):
        print(__doc__, file=sys.stderr)
        return 2
    state = Path(argv[1]).resolve()
    if argv[0] == "start":
        print(json.dumps({k: v for k, v in start(state).items() if k != "pids"}))
    elif argv[0] == "stop":
        stop(state)
    elif argv[0] == "stop-replica":
        stop_replica(state, int(argv[2]))
    else:
        start_replica(state, int(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
