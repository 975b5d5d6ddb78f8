import transformers
from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast

print("transformers", transformers.__version__)
tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"[UNK]": 0, "hi": 1}, unk_token="[UNK]")))
tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
