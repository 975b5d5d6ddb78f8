import os

from torch.distributed.elastic.multiprocessing.errors import record


def main():
    raise ValueError("tokenizer.json is not valid JSON")
if os.environ.get("USE_RECORD") == "1":
    main = record(main)
if __name__ == "__main__":
    main()
