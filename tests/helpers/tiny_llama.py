"""A tiny Llama (2 layers, random weights) and a tokenizer trained on the fly, saved as a local
Hugging Face model folder that vLLM loads like any other (needs torch, transformers, tokenizers).

    python tests/helpers/tiny_llama.py DIR [--max-len 1024]

Its answers are noise, but its context length, tokenizer, chat template and engine behaviour are
real: what the vLLM tests need.
"""

from __future__ import annotations

import argparse
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}</s>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
_CORPUS = [
    "public int add(int a, int b) { return a + b; }",
    "The method returns the wrong value when the input is null or empty.",
    'if (x == null) { throw new IllegalArgumentException("x"); }',
    "for (int i = 0; i < values.length; i++) { total += values[i]; }",
    "```java\nprivate static String name(Object o) {\n    return o.toString();\n}\n```",
    "Fix the bug with minimal changes. Reply with the complete fixed method.",
]


def build(folder: Path, *, max_len: int = 1024, vocab: int = 512, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, special_tokens=["<unk>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(_CORPUS * 20, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", unk_token="<unk>", model_max_length=max_len
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(folder)

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        # head_dim 64: vLLM-CPU attention needs it
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=max_len,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        torch_dtype="float32",
    )
    LlamaForCausalLM(config).save_pretrained(folder, safe_serialization=True)
    return folder


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--max-len", type=int, default=1024)
    args = parser.parse_args()
    print(build(args.folder, max_len=args.max_len))
