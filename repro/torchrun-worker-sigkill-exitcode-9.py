"""A torchrun worker killed by the kernel's OOM killer, and torchrun's report: exitcode -9.

The worker loads a 3 GiB dataset into host memory inside a memory cgroup of 1 GiB, the limit a
container, a SLURM job or a systemd unit puts on a job; the kernel kills it with SIGKILL. With
--fix, the guide's fix: a lower host-memory peak per worker (the same data read in chunks of
128 MiB), and the job finishes. Needs root and a writable memory cgroup (v2 or v1); without
one it says so and exits 2, reproducing nothing.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

LIMIT = 1 << 30  # torchrun's agent and its worker together
DATA, CHUNK = 3 << 30, 128 << 20

WORKER = textwrap.dedent(f"""
    import sys
    whole = "--fix" not in sys.argv
    print("loading a dataset into host memory" + ("" if whole else " in chunks"), flush=True)
    if whole:
        data = [bytearray(b"\\x01") * {CHUNK} for _ in range({DATA // CHUNK})]  # all of it resident at once
        total = sum(map(len, data))
    else:
        total = 0
        for _ in range({DATA // CHUNK}):
            chunk = bytearray(b"\\x01") * {CHUNK}
            total += len(chunk)
            del chunk
    print(f"read {{total >> 20}} MiB", flush=True)
""")


def memory_cgroup() -> tuple[Path, str, str]:
    """A new memory cgroup limited to LIMIT: (its folder, the file that takes a PID, the file
    that counts OOM kills)."""
    v2 = Path("/sys/fs/cgroup")
    if (v2 / "cgroup.controllers").exists():
        here = Path("/proc/self/cgroup").read_text().strip().splitlines()[-1].split("::", 1)[1].lstrip("/")
        parent = v2 / here if here else v2
        if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
            try:
                (parent / "cgroup.subtree_control").write_text("+memory")
            except OSError:
                # A cgroup that holds processes cannot give its children controllers (cgroup v2's
                # "no internal processes" rule): make a sibling, under a parent that already does.
                if parent == v2 or "memory" not in (parent / "cgroup.controllers").read_text().split():
                    raise
                parent = parent.parent
        cg = parent / f"kb-repro-{os.getpid()}"
        cg.mkdir()
        (cg / "memory.max").write_text(str(LIMIT))
        if (cg / "memory.swap.max").exists():
            (cg / "memory.swap.max").write_text("0")
        return cg, "cgroup.procs", "memory.events"
    v1 = Path("/sys/fs/cgroup/memory")
    cg = v1 / f"kb-repro-{os.getpid()}"
    cg.mkdir()
    (cg / "memory.limit_in_bytes").write_text(str(LIMIT))
    if (cg / "memory.memsw.limit_in_bytes").exists():
        (cg / "memory.memsw.limit_in_bytes").write_text(str(LIMIT))
    return cg, "cgroup.procs", "memory.oom_control"


def main() -> int:
    fix = "--fix" in sys.argv
    try:
        cg, procs, events = memory_cgroup()
    except OSError as exc:
        print(f"no writable memory cgroup here ({exc}); this reproduction needs one", file=sys.stderr)
        return 2
    script = Path(tempfile.mkdtemp()) / "train.py"
    script.write_text(WORKER)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "1", "--standalone", str(script)]
    try:
        rc = subprocess.run(cmd + (["--fix"] if fix else []), timeout=300,
                            preexec_fn=lambda: (cg / procs).write_text(str(os.getpid()))).returncode
        # The kernel's own count, as `dmesg` would show it: did the OOM killer act in this cgroup?
        counts = dict(line.split() for line in (cg / events).read_text().splitlines() if len(line.split()) == 2)
        print(f"{cg}/{events}: oom_kill {counts.get('oom_kill', '?')}", flush=True)
        return rc
    finally:
        try:
            cg.rmdir()
        except OSError:
            pass


if __name__ == "__main__":
    sys.exit(main())
