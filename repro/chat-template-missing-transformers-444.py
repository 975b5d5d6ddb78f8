"""apply_chat_template on a base model's tokenizer, which ships no chat template (Transformers
>= 4.44 no longer falls back to a default one); --fix sets the template explicitly."""
import sys

from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

vocab = {"[UNK]": 0, "hello": 1, "user": 2, "assistant": 3}
raw = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
raw.pre_tokenizer = pre_tokenizers.Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=raw, unk_token="[UNK]")  # a base model: no chat_template
if "--fix" in sys.argv:
    tok.chat_template = "{% for m in messages %}{{ m['role'] }} {{ m['content'] }}\n{% endfor %}"
print("OK:", tok.apply_chat_template([{"role": "user", "content": "hello"}], tokenize=False))
