"""Environment-report parsing, the GPU table, and condition / applicability evaluation.

The samples in tests/data/env are real pastes from public GitHub issues and repositories;
tests/data/env/README.md says where each comes from and what was cut.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.env import reports as er
from kb.env.conditions import CheckOutcome, cuda_version, evaluate, fit, satisfies
from kb.env.gpus import compute_capability
from kb.env.reports import EnvRecord, parse_report
from schema.models import AppliesTo, ComponentRange, Condition, Hardware

DATA = Path(__file__).parent / "data" / "env"

RTXPRO_HEAD = "vllm_collect_env_rtxpro6000_head.txt"  # vllm-project/vllm#20712
RTXPRO_TAIL = "vllm_collect_env_rtxpro6000_tail.txt"  # vllm-project/vllm#23497
RTXPRO_SERVER = "vllm_collect_env_rtxpro6000_server.txt"  # vllm-project/vllm#32109
H100_DSTACK = "vllm_collect_env_8xh100_dstack.txt"  # dstackai/benchmarks
H100_HEAD = "vllm_collect_env_h100_head.txt"  # vllm-project/vllm#21288
ADA_HEAD = "vllm_collect_env_rtx6000ada_head.txt"  # vllm-project/vllm#49804
TORCH_H100 = "torch_collect_env_h100.txt"  # Skovorp/feral#18
PIP_LIST = "pip_list_vllm24237.txt"  # vllm-project/vllm#24237
PIP_FREEZE = "pip_freeze_tensorrt4329.txt"  # NVIDIA/TensorRT#4329
SMI = "nvidia_smi_rtxpro6000.txt"  # vllm-project/vllm#43412
SMI_CSV = "nvidia_smi_query_csv_triton8070.txt"  # triton-inference-server/server#8070
NVCC = "nvcc_version.txt"  # NVIDIA/nvidia-container-toolkit#20
UNAME = "uname_a.txt"  # NVIDIA/nvidia-container-toolkit#20
MULTI = "multi_paste_pvnet176.txt"  # zju3dv/pvnet#176

TRACEBACK = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 692, in __init__
    super().__init__(
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""

# The seed guide's checks and applicability (guides/vllm/vllm-dsv41-sm120-no-common-block-size.yaml),
# restated here so that edits to the guide do not change what these tests mean.
VLLM_032 = Condition(kind="package_version", package="vllm", spec=">=0.32.0")
FLASHINFER_070 = Condition(kind="package_version", package="flashinfer-python", spec="==0.7.0")
SM120 = Condition(kind="compute_capability", spec="==12.0")
SEED_APPLIES_TO = AppliesTo(
    components=[ComponentRange(name="vllm", versions=">=0.32.0"),
                ComponentRange(name="flashinfer-python", versions="==0.7.0")],
    hardware=Hardware(compute_capability=["12.0"]),
)


def sample(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def env_of(name: str) -> EnvRecord:
    return parse_report(sample(name))


def status(condition: Condition, env: EnvRecord) -> str:
    return evaluate(condition, env).status


# --- collect_env ----------------------------------------------------------------------------


def test_collect_env_rtxpro6000_head():
    found = er.parse_collect_env(sample(RTXPRO_HEAD))
    assert found["kind"] == er.KIND_VLLM_COLLECT_ENV  # known by its section banners alone
    assert found["torch_version"] == "2.7.0+cu128"
    assert found["torch_cuda"] == "12.8"
    assert found["cuda_runtime"] == "12.9.41"
    assert found["driver_version"] == "575.51.03"
    assert found["python_version"] == "3.12.3"
    assert found["os"] == "Ubuntu 24.04.2 LTS (x86_64)"
    assert found["kernel"] == "6.8.0-62-generic"
    assert found["gpus"] == [("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0")]
    assert found["packages"] == {}


def test_collect_env_rtxpro6000_tail_packages_and_vllm_version():
    found = er.parse_collect_env(sample(RTXPRO_TAIL))
    assert found["kind"] == er.KIND_VLLM_COLLECT_ENV
    packages = found["packages"]
    assert packages["vllm"] == "0.10.2+9dd9ca32.nv25.10"
    assert packages["torch"] == "2.9.0a0+145a3a7bda.nv25.10"
    assert packages["flashinfer-python"] == "0.4.0+6690ebbc.nv25.10.37063217"
    assert packages["mypy-extensions"] == "1.1.0"  # PEP 503: mypy_extensions
    assert packages["torch-tensorrt"] == "2.9.0a0"
    assert packages["triton"] == "3.4.0+gitc817b9b6"
    assert found["gpus"] == []  # the GPU Topology matrix names no models


def test_collect_env_rtxpro6000_server_multi_gpu():
    env = env_of(RTXPRO_SERVER)
    assert env.gpus == (("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),) * 2
    assert (env.torch_version, env.torch_cuda, env.cuda_runtime) == ("2.9.1+cu130", "13.0", "13.1.80")
    assert env.driver_version is None  # cut off in the excerpt


def test_collect_env_8xh100_complete_and_indented():
    env = env_of(H100_DSTACK)
    assert env.sources == (er.KIND_VLLM_COLLECT_ENV,)
    assert env.package("vllm") == "0.6.3.post2.dev308+gb489fc3c"
    assert env.torch_version == "2.5.1+cu124"
    assert env.package("torch") == "2.5.1"
    assert env.package("transformers") == "4.46.2"
    assert env.package("nvidia-nccl-cu12") == "2.21.5"
    assert env.torch_cuda == "12.4"
    assert env.cuda_runtime == "12.2.140"
    assert env.driver_version == "550.90.12"  # not the container's CUDA_DRIVER_VERSION=535.104.05
    assert env.python_version == "3.10.12"
    assert env.gpus == (("NVIDIA H100 80GB HBM3", "9.0"),) * 8
    assert env.kernel == "6.8.0-47-generic"


def test_collect_env_h100_head_new_format():
    env = env_of(H100_HEAD)
    assert env.sources == (er.KIND_VLLM_COLLECT_ENV,)
    assert env.os == "Debian GNU/Linux 12 (bookworm) (x86_64)"
    assert env.kernel == "5.15.120.bsk.6-amd64"
    assert (env.torch_version, env.cuda_runtime, env.driver_version) == ("2.7.0+cu126", "12.4.131", "535.129.03")
    assert env.gpus == (("NVIDIA H100 80GB HBM3", "9.0"),)


def test_collect_env_rtx6000ada_gpu_list_on_following_lines():
    env = env_of(ADA_HEAD)
    assert env.gpus == (("NVIDIA RTX 6000 Ada Generation", "8.9"),) * 2
    assert (env.torch_cuda, env.cuda_runtime, env.driver_version) == ("13.0", "12.4.131", "595.84")
    assert env.python_version == "3.12.13"


def test_torch_collect_env():
    found = er.parse_collect_env(sample(TORCH_H100))
    assert found["kind"] == er.KIND_TORCH_COLLECT_ENV
    assert found["torch_version"] == "2.9.1+cu126"
    assert found["torch_cuda"] == "12.6"
    assert found["cuda_runtime"] == "12.6.85"
    assert found["driver_version"] == "580.126.09"
    assert found["python_version"] == "3.11.14"
    assert found["os"] == "Ubuntu 22.04.5 LTS (x86_64)"
    assert found["gpus"] == [("NVIDIA H100 80GB HBM3", "9.0")]


# --- pip -------------------------------------------------------------------------------------


def test_pip_list_uv_three_columns():
    found = er.parse_pip_list(sample(PIP_LIST))
    packages = found["packages"]
    assert found["kind"] == er.KIND_PIP_LIST
    assert len(packages) == 23
    assert packages["accelerate"] == "1.10.0"
    assert packages["airportsdata"] == "20250811"
    assert packages["charset-normalizer"] == "3.4.2"
    assert "package" not in packages and "using" not in packages


def test_pip_freeze_pins_and_urls():
    found = er.parse_pip_freeze(sample(PIP_FREEZE))
    packages = found["packages"]
    assert found["kind"] == er.KIND_PIP_FREEZE
    assert len(packages) == 33
    assert packages["absl-py"] == "2.1.0"
    assert packages["cython"] == "3.0.11"  # Cython==3.0.11, normalised
    assert packages["antlr4-python3-runtime"] == "4.9.3"
    assert packages["depth-anything"] == "2024.1.22.0"  # from the wheel's file name
    assert packages["depth-anything-v2"] == "2024.7.1.0"


def test_pip_freeze_url_without_version():
    found = er.parse_pip_freeze("numpy==1.26.4\nvllm @ file:///vllm-workspace\n")
    assert found["packages"] == {"numpy": "1.26.4", "vllm": ""}


# --- nvidia-smi, nvcc, python, uname ---------------------------------------------------------


def test_nvidia_smi_table_truncated_name():
    found = er.parse_nvidia_smi(sample(SMI))
    assert found["driver_version"] == "580.95.05"
    assert found["driver_cuda"] == "13.0"
    assert found["gpus"] == [("NVIDIA RTX PRO 6000 Blac...", "12.0")]


def test_nvidia_smi_csv_reordered_columns_and_list():
    env = env_of(SMI_CSV)
    assert env.gpus == (("NVIDIA TITAN V", "7.0"), ("NVIDIA RTX 5880 Ada Generation", "8.9"))
    assert env.driver_version == "570.86.15"
    assert env.sources == (er.KIND_NVIDIA_SMI_CSV, er.KIND_NVIDIA_SMI_LIST)
    listed = er.parse_nvidia_smi_list(sample(SMI_CSV))
    assert [name for name, _ in listed["gpus"]] == ["NVIDIA TITAN V", "NVIDIA RTX 5880 Ada Generation"]


def test_nvidia_smi_csv_header_then_rows():
    text = "name, compute_cap, driver_version\nNVIDIA GB10, 12.1, 580.159.03\n"
    found = er.parse_nvidia_smi_csv(text)
    assert found["gpus"] == [("NVIDIA GB10", "12.1")]
    assert found["driver_version"] == "580.159.03"


def test_nvcc_and_uname():
    assert er.parse_nvcc(sample(NVCC)) == {"kind": er.KIND_NVCC, "nvcc_version": "10.1.243"}
    assert er.parse_uname(sample(UNAME)) == {"kind": er.KIND_UNAME, "kernel": "5.14.0-1032-oem", "os": "Linux"}


def test_python_version_forms():
    assert er.parse_python_version("$ python --version\nPython 3.11.7\n")["python_version"] == "3.11.7"
    assert er.parse_python_version(sample(MULTI))["python_version"] == "3.10.13"  # REPL banner


def test_multi_report_paste():
    env = env_of(MULTI)
    assert set(env.sources) == {er.KIND_PYTHON, er.KIND_LSB_RELEASE, er.KIND_UNAME, er.KIND_NVCC, er.KIND_NVIDIA_SMI}
    assert env.python_version == "3.10.13"
    assert env.os == "Ubuntu 22.04.3 LTS"
    assert env.kernel == "6.2.0-34-generic"
    assert env.nvcc_version == "11.5.119"
    assert (env.driver_version, env.driver_cuda) == ("525.125.06", "12.0")
    assert env.gpus == ()


# --- declining, volatile formatting, merging ---------------------------------------------------

PARSERS_AND_THEIR_SAMPLES = [
    (er.parse_collect_env, {RTXPRO_HEAD, RTXPRO_TAIL, RTXPRO_SERVER, H100_DSTACK, H100_HEAD, ADA_HEAD, TORCH_H100}),
    (er.parse_pip_list, {PIP_LIST}),
    (er.parse_pip_freeze, {PIP_FREEZE}),
    (er.parse_nvidia_smi, {SMI, MULTI}),
    (er.parse_nvidia_smi_csv, {SMI_CSV}),
    (er.parse_nvidia_smi_list, {SMI_CSV}),
    (er.parse_nvcc, {NVCC, MULTI}),
    (er.parse_python_version, {MULTI}),
    (er.parse_uname, {UNAME, MULTI}),
    (er.parse_lsb_release, {MULTI}),
]
ALL_SAMPLES = sorted(p.name for p in DATA.glob("*.txt"))


@pytest.mark.parametrize("parser,own", PARSERS_AND_THEIR_SAMPLES, ids=lambda v: getattr(v, "__name__", ""))
def test_parsers_decline_other_kinds(parser, own):
    for name in ALL_SAMPLES:
        found = parser(sample(name))
        assert bool(found) == (name in own), f"{parser.__name__} on {name}"
    assert parser(TRACEBACK) == {}
    assert parser("") == {}


def test_pip_freeze_needs_a_listing_not_one_pin():
    assert er.parse_pip_freeze("Fixed by running pip install vllm==0.6.3\nvllm==0.6.3\n") == {}


def test_windows_line_ends_indentation_and_quotes():
    text = sample(RTXPRO_HEAD)
    mangled = "\r\n".join("> " + "   " + line for line in text.split("\n"))
    assert parse_report(mangled) == parse_report(text)


def test_paste_with_traceback_and_several_reports():
    paste = "\n".join([sample(RTXPRO_HEAD), "```", TRACEBACK, sample(SMI), sample(PIP_FREEZE)])
    env = parse_report(paste)
    assert env.sources == (er.KIND_VLLM_COLLECT_ENV, er.KIND_PIP_FREEZE, er.KIND_NVIDIA_SMI)
    # collect_env's full GPU name wins over nvidia-smi's truncated one; the card is not counted twice.
    assert env.gpus == (("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),)
    assert env.driver_version == "575.51.03" and env.driver_cuda == "13.0"
    assert env.package("accelerate") == "0.21.0"
    assert env.lists_all_packages()


def test_empty_and_unrelated_text():
    assert parse_report(TRACEBACK) == EnvRecord()
    assert parse_report("") == EnvRecord()


def test_torch_cuda_from_local_label():
    env = parse_report("torch==2.5.1+cu124\nnumpy==1.26.4\n")
    assert (env.torch_version, env.torch_cuda) == ("2.5.1+cu124", "12.4")
    assert parse_report("torch==2.0.1+cu92\nnumpy==1\n").torch_cuda == "9.2"


# --- GPU table ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name,cc", [
    ("NVIDIA GeForce RTX 5090", "12.0"),
    ("NVIDIA GeForce RTX 5080", "12.0"),
    ("NVIDIA GeForce RTX 5070 Ti", "12.0"),
    ("NVIDIA GeForce RTX 5060", "12.0"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    ("NVIDIA RTX PRO 6000 Blac...", "12.0"),
    ("NVIDIA GB10", "12.1"),
    ("NVIDIA B200", "10.0"),
    ("NVIDIA GB200", "10.0"),
    ("NVIDIA B300 SXM6 AC", "10.3"),
    ("NVIDIA GB300", "10.3"),
    ("NVIDIA H100 80GB HBM3", "9.0"),
    ("NVIDIA H100 PCIe", "9.0"),
    ("NVIDIA H200", "9.0"),
    ("NVIDIA GH200 480GB", "9.0"),
    ("NVIDIA H20", "9.0"),
    ("NVIDIA H800", "9.0"),
    ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("NVIDIA A800-SXM4-80GB", "8.0"),
    ("NVIDIA A30", "8.0"),
    ("NVIDIA A10", "8.6"),
    ("NVIDIA A10G", "8.6"),
    ("NVIDIA A40", "8.6"),
    ("NVIDIA A2", "8.6"),
    ("NVIDIA RTX A6000", "8.6"),
    ("NVIDIA RTX A5000", "8.6"),
    ("NVIDIA RTX A4000", "8.6"),
    ("NVIDIA GeForce RTX 3090", "8.6"),
    ("NVIDIA L4", "8.9"),
    ("NVIDIA L40", "8.9"),
    ("NVIDIA L40S", "8.9"),
    ("NVIDIA GeForce RTX 4090", "8.9"),
    ("NVIDIA GeForce RTX 4070 Laptop GPU", "8.9"),
    ("NVIDIA RTX 6000 Ada Generation", "8.9"),
    ("Tesla T4", "7.5"),
    ("NVIDIA GeForce RTX 2080 Ti", "7.5"),
    ("Quadro RTX 6000", "7.5"),
    ("Tesla V100-SXM2-32GB", "7.0"),
    ("Tesla V100S-PCIE-32GB", "7.0"),
    ("Tesla P100-PCIE-16GB", "6.0"),
    ("Tesla P40", "6.1"),
    ("Tesla P4", "6.1"),
    ("NVIDIA GeForce GTX 1080 Ti", "6.1"),
    ("NVIDIA Jetson AGX Orin", "8.7"),
])
def test_gpu_table(name, cc):
    assert compute_capability(name) == cc


@pytest.mark.parametrize("name", ["NVIDIA RTX 6000", "NVIDIA GeForce RTX 50...", "AMD Radeon Graphics (gfx906:sramecc+:xnack-)", ""])
def test_gpu_table_ambiguous_or_unknown(name):
    assert compute_capability(name) is None


# --- conditions --------------------------------------------------------------------------------


def test_versions_compare_sensibly():
    assert satisfies("2.5.1+cu124", ">=2.5,<2.6") is True
    assert satisfies("2.5.1+cu124", "==2.5.1") is True
    assert satisfies("0.11.1rc2.dev123+g1234", ">=0.11.0") is True
    assert satisfies("0.32.1.dev12+gabcdef0", ">=0.32.0") is True
    assert satisfies("0.32.0rc1", ">=0.32.0") is False  # a release candidate comes before the release
    assert satisfies("550.54.15", ">=535") is True
    assert satisfies("not-a-version", ">=1") is None


def test_sm120_report_conditions():
    env = env_of(RTXPRO_HEAD)
    cc = evaluate(SM120, env)
    assert cc == CheckOutcome("pass", "12.0 (NVIDIA RTX PRO 6000 Blackwell Workstation Edition)",
                              cc.reason, cc.reason_zh)
    assert "satisfies" in cc.reason and "满足" in cc.reason_zh
    assert status(VLLM_032, env) == "unknown"  # this part of the report has no vLLM section
    assert status(FLASHINFER_070, env) == "unknown"
    assert status(Condition(kind="package_version", package="torch", spec=">=2.7"), env) == "pass"
    assert status(Condition(kind="package_version", package="PyTorch", spec="<2.7"), env) == "fail"
    assert status(Condition(kind="driver_version", spec=">=570"), env) == "pass"
    assert status(Condition(kind="python_version", spec=">=3.12"), env) == "pass"
    cuda = evaluate(Condition(kind="cuda_version", spec=">=12.8"), env)
    assert (cuda.status, cuda.found) == ("pass", "CUDA 12.8 (torch CUDA build)")
    assert status(Condition(kind="package_present", package="vllm"), env) == "unknown"


def test_sm120_report_tail_versions():
    env = env_of(RTXPRO_TAIL)
    outcome = evaluate(VLLM_032, env)
    assert (outcome.status, outcome.found) == ("fail", "vllm 0.10.2+9dd9ca32.nv25.10")
    assert status(Condition(kind="package_version", package="vllm", spec="==0.10.2"), env) == "pass"
    assert status(FLASHINFER_070, env) == "fail"
    assert status(Condition(kind="package_version", package="torch", spec=">=2.9.0a0"), env) == "pass"
    assert status(SM120, env) == "unknown"


def test_h100_report_conditions():
    env = env_of(H100_DSTACK)
    cc = evaluate(SM120, env)
    assert (cc.status, cc.found) == ("fail", "9.0 (NVIDIA H100 80GB HBM3)")
    vllm = evaluate(VLLM_032, env)
    assert (vllm.status, vllm.found) == ("fail", "vllm 0.6.3.post2.dev308+gb489fc3c")
    assert status(FLASHINFER_070, env) == "unknown"  # collect_env lists only "relevant" libraries
    assert status(Condition(kind="compute_capability", spec=">=9.0"), env) == "pass"
    assert status(Condition(kind="driver_version", spec=">=570"), env) == "fail"
    assert cuda_version(env) == ("12.4", "torch CUDA build")


def test_compute_capability_needs_every_known_gpu():
    mixed = EnvRecord(gpus=(("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),
                            ("NVIDIA RTX 6000 Ada Generation", "8.9"), ("Mystery GPU", None)))
    assert status(SM120, mixed) == "fail"
    assert status(Condition(kind="compute_capability", spec=">=8.9"), mixed) == "pass"
    assert status(SM120, EnvRecord(gpus=(("Mystery GPU", None),))) == "unknown"


def test_package_presence_with_a_full_listing():
    env = env_of(PIP_FREEZE)
    assert status(Condition(kind="package_present", package="Accelerate"), env) == "pass"
    assert status(Condition(kind="package_absent", package="vllm"), env) == "pass"
    assert status(Condition(kind="package_present", package="vllm"), env) == "fail"
    assert status(VLLM_032, env) == "fail"  # not installed at all


# --- fit ---------------------------------------------------------------------------------------


def test_fit_sm120_report():
    notes = fit(SEED_APPLIES_TO, env_of(RTXPRO_HEAD))
    assert [(n.verdict, n.what) for n in notes] == [("fits", "compute capability")]


def test_fit_sm120_tail_contradicts_versions():
    notes = fit(SEED_APPLIES_TO, env_of(RTXPRO_TAIL))
    assert [(n.verdict, n.what) for n in notes] == [("contradicts", "vllm"), ("contradicts", "flashinfer-python")]


def test_fit_h100_report():
    notes = fit(SEED_APPLIES_TO, env_of(H100_DSTACK))
    assert [(n.verdict, n.what) for n in notes] == [("contradicts", "vllm"), ("contradicts", "compute capability")]
    assert all(n.reason and n.reason_zh for n in notes)


def test_fit_component_name_mapping():
    env = env_of(RTXPRO_HEAD)
    applies = AppliesTo(components=[
        ComponentRange(name="pytorch", versions=">=2.7,<2.8"),
        ComponentRange(name="cuda", versions=">=13.0"),
        ComponentRange(name="nvidia-driver", versions=">=575"),
        ComponentRange(name="python", versions=""),
        ComponentRange(name="sglang", versions=">=0.4"),  # not in the report: no note
    ])
    assert [(n.verdict, n.what) for n in fit(applies, env)] == [
        ("fits", "pytorch"), ("contradicts", "cuda"), ("fits", "nvidia-driver"), ("fits", "python")]
