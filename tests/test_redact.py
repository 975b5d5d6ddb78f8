"""kb.feedback.redact: secrets and personal data go, ordinary ML-log text stays byte-identical."""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from kb.feedback.redact import redact
from kb.feedback.store import Store

# (pasted text, the part that must not survive). Shapes follow the real formats;
# the values are made up or the providers' documented examples.
SECRETS: list[tuple[str, str]] = [
    ("HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ12345678", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ12345678"),
    ("huggingface-cli login --token hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456", "hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456"),
    ("export HUGGING_FACE_HUB_TOKEN='hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa98765432'", "hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa98765432"),
    (
        "openai.AuthenticationError: Error code: 401 - Incorrect API key provided: "
        "sk-proj-Ab3dEf_gHiJkLmNoPqRsTuVwXyZ-0123456789abcdefGHIJ",
        "sk-proj-Ab3dEf_gHiJkLmNoPqRsTuVwXyZ-0123456789abcdefGHIJ",
    ),
    ("OPENAI_API_KEY=sk-AbCdEfGhIjKlMnOpQrStT3BlbkFJuVwXyZ0123456789ab", "sk-AbCdEfGhIjKlMnOpQrStT3BlbkFJuVwXyZ0123456789ab"),
    ("ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrSt-uvwxyz_0123456789AA", "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"),
    ("GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("gh auth status: Token: gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
    (
        "git push https://github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV@github.com/o/r",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "fatal: unable to access 'https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/org/repo.git/'",
        "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("botocore credentials: ASIAY34FZKBOKMUTVV7A expired", "ASIAY34FZKBOKMUTVV7A"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ('AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"', "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' https://api.example.com", "dXNlcjpwYXNzd29yZA=="),
    ("Authorization: Bearer hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    ("proxy-authorization: Bearer 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    (
        "HTTPError: headers={'Authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'}",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("requests: Bearer abcDEF123ghiJKL456mnoPQR", "abcDEF123ghiJKL456mnoPQR"),
    ("wandb: WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567"),
    ("wandb.login(key=None, api_key='a1b2c3d4e5f6a7b8c9d0')", "a1b2c3d4e5f6a7b8c9d0"),
    ('{"api_key": "my-api-key-value-123", "model": "gpt-4o"}', "my-api-key-value-123"),
    ("psql: password=hunter2 host=db", "hunter2"),
    ("DB password: S3cr3t!Pass", "S3cr3t!Pass"),
    ("PGPASSWORD=Tr0ub4dor&3 psql -h db", "Tr0ub4dor"),
    ("mlflow server --password 'correct horse battery staple' --port 5000", "correct horse battery staple"),
    ("https://hub.example.com/api?token=abc123def456&repo=x", "abc123def456"),
    ("client_secret: 8Q~abc.DEF_ghi-JKL", "8Q~abc.DEF_ghi-JKL"),
    ("sqlalchemy: postgresql://kb:pa55word@db.internal:5432/kb", "pa55word"),
    ("https://alice:s3cret@example.com/simple/", "s3cret"),
    ("Looking in indexes: https://__token__:pypi-AgEIcHlwaS5vcmc@pypi.example.org/simple", "pypi-AgEIcHlwaS5vcmc"),
    ("Contact: alice.smith@example.com for access", "alice.smith@example.com"),
    ("Author: Bob Jones <bob+ml@research.example.org>", "bob+ml@research.example.org"),
    ("MASTER_ADDR=10.1.2.3 MASTER_PORT=29500", "10.1.2.3"),
    ("torch.distributed: connect to 192.168.1.20:29500 failed", "192.168.1.20"),
    ("--dist-url tcp://172.16.5.4:23456", "172.16.5.4"),
    ("NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0>", "10.0.0.5"),
    ("ping 8.8.4.4 failed", "8.8.4.4"),
    ("gloo: [2001:db8:85a3::8a2e:370:7334]:29500 unreachable", "2001:db8:85a3"),
    ("inet6 fe80::1ff:fe23:4567:890a%eth0 scope link", "fe80::1ff:fe23:4567:890a"),
    ("addr ::ffff:192.168.1.5 mapped", "192.168.1.5"),
    ("host ip-10-0-1-23.ec2.internal not resolved", "10-0-1-23"),
    ('File "/home/alice/project/train.py", line 12, in <module>', "alice"),
    ("/Users/bob/Library/Caches/pip", "bob"),
    (r"C:\Users\carol\AppData\Local\Programs\Python\Python312\Lib\site-packages\torch\__init__.py", "carol"),
    (r"C:\Users\John Smith\Documents\train.py", "John Smith"),
    (r'{"path": "C:\\Users\\dave\\.cache\\huggingface"}', "dave"),
    ("OSError: [Errno 28] No space left on device: '/home/erin'", "erin"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "AAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ==\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq98dC (truncated", "MIIEpAIBAAKCAQEA7bq98dC"),
    ("GOOGLE_API_KEY=AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSyA-1234567890abcdefghijklmnopqrstu"),
    ("slack: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123"),
    ("gitlab: glpat-xXxXxXxXxXxXxXxXxXxX", "glpat-xXxXxXxXxXxXxXxXxXxX"),
    ("token token=abc123 was rejected", "abc123"),
]

# Lines from real ML failures that must come out byte for byte.
KEEP: list[str] = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl',
    '  File "/opt/conda/lib/python3.10/site-packages/vllm/engine/llm_engine.py", line 412, in from_engine_args',
    '  File "/root/miniconda3/envs/py312/lib/python3.12/site-packages/transformers/trainer.py", line 2052',
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.06 GiB is free. Process 12345 has 78.08 GiB memory in use.",
    "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
    "Cuda compilation tools, release 12.4, V12.4.131",
    "vllm==0.6.4.post1 flash-attn==2.6.3 xformers 0.0.28.post3 apex 0.6.4.1",
    "torch 2.5.1+cu124, NCCL version 2.21.5+cuda12.4",
    "nvidia-cudnn-cu12         9.1.0.70",
    "nvidia-cublas-cu12==12.4.5.8",
    "TensorRT version 8.6.1.6",
    "OSError: libcublas.so.12.1.3.1: cannot open shared object file: No such file or directory",
    "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found",
    "[rank0]:[E1201 04:41:22.123456789 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 "
    "milliseconds before timing out.",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: rank=0 pid=123 exitcode=-6",
    "RuntimeError: CUDA error: device-side assert triggered",
    "Segmentation fault at address 0x7f3a2c000000, pc 0x00007f3a2c0012ab",
    "terminate called after throwing an instance of 'c10::Error'",
    "  what():  CUDA error: an illegal memory access was encountered (c10::cuda::CUDAError, at::Tensor)",
    "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
    "stored in KV cache (13456).",
    "Using pad_token, but it is not set yet.",
    "tokenizer.pad_token = tokenizer.eos_token",
    'special_tokens_map: {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}',
    "image_token='<image>' additional_special_tokens=['<|im_start|>']",
    "generate(max_new_tokens=256, num_tokens=1024, token_type_ids=None, use_auth_token=True, token=None)",
    "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.",
    "INFO 12-01 04:41:22 model_runner.py:1072] Loading model weights took 14.9926 GB",
    "x = hidden[:, ::2]; y = arr[100::200]",
    "2024-05-01 12:34:56,789 - INFO - step 100/1000 loss=2.3456 lr=1e-4",
    "Device 0000:3b:00.0 GPU-5b6c8d3e-1f2a-4b3c-9d8e-7f6a5b4c3d2e MAC 00:1b:21:3a:4f:5c",
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
    "Running on local URL:  http://127.0.0.1:7860",
    "Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    "CUDA_VISIBLE_DEVICES=0,1,2,3 torchrun --nproc_per_node=4 --master_port=29500 train.py",
    "HF_HUB_ENABLE_HF_TRANSFER=1 huggingface-cli download meta-llama/Llama-3.1-8B-Instruct",
    'pip install "flash-attn @ git+https://github.com/Dao-AILab/flash-attention.git@v2.6.3"',
    "git clone git@github.com:vllm-project/vllm.git",
    "/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B/snapshots/"
    "0e9e39f249a16976918f6564b8830bc894c89659/config.json",
    "sha256:3f1a0c2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a",
    "Token is valid (permission: read).",
    "Your token has been saved to /root/.cache/huggingface/token",
    "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo. Please log in.",
    "KeyError: 'api_key'",
    "export HF_TOKEN=$HF_TOKEN && docker run -e HF_TOKEN=${HF_TOKEN} vllm/vllm-openai:v0.6.4",
    "The Bearer authentication scheme failed; see password reset and secret management docs.",
    "ERROR: Could not find a version that satisfies the requirement torch==2.5.1+cu124 (from versions: 2.2.0, 2.3.0)",
    "Kernel 5.15.0-1057-aws; glibc 2.35; gcc 11.4.0",
    "/Users/Shared/models and C:\\Users\\Public\\Documents",
    "std::runtime_error: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory",
    # what the rules for command lines, user names and hosts must leave alone
    "python -u train.py && pip install --user torch && docker run -u 1000 img",
    "self._local = threading.local()",
    '{"role": "user", "content": "hi"} user: hello there',
    "ssh: host key verification failed",
    "from google.protobuf.internal import builder",
    "HTTPSConnectionPool(host='huggingface.co', port=443): Could not resolve host: github.com",
    "http://localhost:8000/v1 and http://0.0.0.0:8000",
    "cookies enabled; sig = inspect.signature(fn)",
]


@pytest.mark.parametrize("text, secret", SECRETS, ids=[s for s, _ in SECRETS])
def test_secret_is_removed(text: str, secret: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert "<" in redacted and ">" in redacted, "a visible placeholder marks the removal"


@pytest.mark.parametrize("line", KEEP)
def test_ml_log_line_is_kept(line: str) -> None:
    assert redact(line) == line


@pytest.mark.parametrize(
    "text, expected",
    [
        ("HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ12345678", "HF_TOKEN=<hf-token>"),
        ("https://alice:s3cret@example.com/x", "https://<redacted>@example.com/x"),
        ("/home/alice/project", "/home/<user>/project"),
        ("/root/project", "/root/project"),
        (r"C:\Users\carol\AppData", r"C:\Users\<user>\AppData"),
        ("mail a.b@example.com now", "mail <email> now"),
        ("MASTER_ADDR=10.1.2.3", "MASTER_ADDR=<ip>"),
        ("password: hunter2", "password: <secret>"),
        ("Authorization: Bearer abc123def456ghi789", "Authorization: Bearer <secret>"),
        ("AKIAIOSFODNN7EXAMPLE", "<aws-key-id>"),
    ],
)
def test_placeholders(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize("text", [s for s, _ in SECRETS] + KEEP + ["\n".join(s for s, _ in SECRETS)])
def test_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_megabyte_of_log_is_redacted() -> None:
    block = "\n".join(KEEP + [s for s, _ in SECRETS]) + "\n"
    text = block * (1_000_000 // len(block) + 1)
    assert len(text) >= 1_000_000
    redacted = redact(text)
    for _, secret in SECRETS:
        assert secret not in redacted
    assert "nvidia-cudnn-cu12         9.1.0.70" in redacted
    assert redact(redacted) == redacted


@pytest.mark.parametrize(
    "unit",
    ["a", "a.", "1.", ":", "a:", "a@", "a.b@c", "\\", "/home/", "token", 'token="', "password ", "Bearer ",
     "Authorization: ", "https://", "a://", "255.", "ffff:", "hf_", "sk-", "-", "C:\\Users\\a "],
)
def test_megabyte_without_structure_completes(unit: str) -> None:
    # Inputs that make backtracking regexes go quadratic or worse; no timing assert,
    # a super-linear pattern simply never finishes.
    text = unit * (1_000_000 // len(unit))
    assert len(redact(text)) > 0


def test_raw_paste_never_reaches_the_database(tmp_path: Path) -> None:
    paste = "\n".join(text for text, _ in SECRETS)
    db_file = tmp_path / "kb.sqlite3"
    url = f"sqlite+pysqlite:///{db_file}"
    with Store(url) as store:
        store.record_unmatched(paste, "en")
        store.record_unmatched(paste[-3000:], "en")
        store.record_feedback("nccl-timeout", False, ["check-ifname"], "en", paste)
        store.record_feedback("nccl-timeout", True, [], "zh", paste[-1500:])

    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = [
            *conn.execute(sa.text("SELECT * FROM feedback")),
            *conn.execute(sa.text("SELECT * FROM unmatched")),
        ]
    engine.dispose()
    assert len(rows) == 4
    stored = "\n".join(str(value) for row in rows for value in row)
    for _, secret in SECRETS:
        assert secret not in stored
    # Nothing raw in the file's bytes either (free pages, WAL leftovers).
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("kb.sqlite3"))
    for _, secret in SECRETS:
        assert secret.encode() not in raw
