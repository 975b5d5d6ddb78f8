"""An environment report pasted with the error: checks evaluated, ranking changed, boxes ticked."""
import json
import subprocess
import sys

from kb.engine.envfit import apply_env, parse_env
from kb.engine.match import match
from tests.conftest import DATA, ROOT, read
from tests.test_app import app, no_crash, texts  # noqa: F401  (fixture-free helpers)

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
SM120 = "env/vllm_collect_env_rtxpro6000_head.txt"
H100 = "env/vllm_collect_env_8xh100_dstack.txt"




def test_checks_pass_on_sm120_and_fail_on_h100(index):
    g = index.guides[SEED1]
    from kb.engine.envfit import evaluate_checks
    fits = evaluate_checks(g, parse_env(read(SM120)))
    assert fits["gpu-sm120"].status == "pass" and "12.0" in fits["gpu-sm120"].found
    assert fits["vllm-version"].status == "unknown"  # that report names no vLLM version
    wrong = evaluate_checks(g, parse_env(read(H100)))
    assert wrong["gpu-sm120"].status == "fail" and "9.0" in wrong["gpu-sm120"].found
    assert wrong["vllm-version"].status == "fail" and "0.6.3" in wrong["vllm-version"].found


def test_contradicting_environment_ranks_lower_and_says_why(index):
    other = index.guides["vllm-no-available-memory-cache-blocks"].raw_errors[0].text
    paste = "ValueError: No common block size for 64\n" + other
    plain = match(index, paste)
    assert plain.matches[0].guide_id == SEED1
    res = match(index, paste)
    apply_env(index, res, parse_env(read(H100)))
    assert res.matches[0].guide_id == "vllm-no-available-memory-cache-blocks"
    seed = next(m for m in res.matches if m.guide_id == SEED1)
    assert seed.confidence == "match"
    assert any(code == "env_contradicts" for code, _ in seed.notes)
    fitting = match(index, paste)
    apply_env(index, fitting, parse_env(read(SM120)))
    assert fitting.matches[0].guide_id == SEED1
    assert any(code == "env_fits" for code, _ in fitting.matches[0].notes)


def test_cli_match_env_json():
    proc = subprocess.run([sys.executable, "-m", "kb", "match", "--json", "--env", str(DATA / SM120), str(DATA / "pastes" / "seed1-serve.log")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    first = out["matches"][0]
    assert first["id"] == SEED1
    assert first["checks"]["gpu-sm120"]["status"] == "pass"
    assert first["fit"][0]["verdict"] == "fits"
    assert out["environment"]["gpus"][0]["compute_capability"] == "12.0"


def test_page_shows_evaluated_checks_and_ticks_them():
    at = app()
    at.text_area(key="paste").input(read("pastes/seed1-serve.log"))
    at.text_area(key="env_text").input(read(SM120)).run()
    no_crash(at)
    assert "is one of the affected GPUs" in texts(at)
    at.button(key=f"open:{SEED1}").click().run()
    no_crash(at)
    shown = texts(at)
    assert "✓ pass" in shown and "satisfies ==12.0" in shown
    assert "? unknown" in shown
    assert at.checkbox(key=f"chk:{SEED1}:gpu-sm120").value is True
    assert at.checkbox(key=f"chk:{SEED1}:vllm-version").value is False
    done = at.query_params["done"]
    assert (done[0] if isinstance(done, list) else done) == "gpu-sm120"


def test_a_check_without_a_condition_shows_what_the_report_says(index):
    # "Do all nodes run the same NVIDIA driver?" has a command, not a spec: the report's driver
    # version is shown with it, once. So are torch's version and CUDA for a torch.__version__ command.
    from kb.engine.envfit import evaluate_checks
    env = parse_env(read(H100))
    driver = evaluate_checks(index.guides["nccl-unhandled-system-error"], env)["driver-versions"]
    assert driver.status == "reported" and driver.found == "driver 550.90.12"
    assert driver.reason.count("550.90.12") == 1
    shown = evaluate_checks(index.guides["bitsandbytes-cuda-setup-failed"], env)["torch-cuda"]
    assert shown.found.startswith("torch 2.5.1") and "CUDA 12.4" in shown.found

