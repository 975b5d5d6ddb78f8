"""A checkpoint whose config.json names a model_type this Transformers does not know (a model
newer than the installed release). (No --fix here: the fix is a Transformers release that
knows the architecture, which needs a network; the guide also covers trust_remote_code.)"""
import json
import tempfile

from transformers import AutoConfig

d = tempfile.mkdtemp()
with open(f"{d}/config.json", "w") as f:
    json.dump({"model_type": "qwen9_moe", "architectures": ["Qwen9MoeForCausalLM"], "hidden_size": 64}, f)
print("OK:", AutoConfig.from_pretrained(d))
