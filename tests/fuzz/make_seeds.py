#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus (tests/fuzz/corpus/): tiny valid attnscope model files
(models/FORMAT.md) covering both tokenizers, both dtypes, pre/post norm, learned/sinusoidal
positions and shared/tied embeddings, sentences for the tokenizer fuzzer, byte strings for the
decoding fuzzer, and SentencePiece models and sentences for the SentencePiece fuzzer.
Standard library only; the output is deterministic. Run: python3 tests/fuzz/make_seeds.py"""
import json
import random
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent


def tensor_names(cfg):
    names = []
    def linear(p, out, inp):
        names.extend([(p + '.weight', [out, inp]), (p + '.bias', [out])])
    def norm(p, d):
        names.extend([(p + '.weight', [d]), (p + '.bias', [d])])
    def attention(p, d):
        for proj in ('q_proj', 'k_proj', 'v_proj', 'out_proj'):
            linear(f'{p}.{proj}', d, d)
    d, ff = cfg['d_model'], cfg['d_ff']
    for side, layers in (('encoder', cfg['n_encoder_layers']), ('decoder', cfg['n_decoder_layers'])):
        for i in range(layers):
            p = f'{side}.layers.{i}'
            attention(p + '.self_attn', d)
            norm(p + '.self_attn_norm', d)
            if side == 'decoder':
                attention(p + '.cross_attn', d)
                norm(p + '.cross_attn_norm', d)
            linear(p + '.ffn.fc1', ff, d)
            linear(p + '.ffn.fc2', d, ff)
            norm(p + '.ffn_norm', d)
        if cfg['norm'] == 'pre':
            norm(side + '.final_norm', d)
        if cfg['positions'] == 'learned':
            names.append((side + '.pos_embed.weight', [cfg['max_positions'], d]))
    return names


def model(cfg, tokenizer, src_vocab, tgt_vocab, dtype, seed):
    rng = random.Random(seed)
    names = [('src_embed.weight', [len(src_vocab), cfg['d_model']])]
    if not cfg['shared_embeddings']:
        names.append(('tgt_embed.weight', [len(tgt_vocab), cfg['d_model']]))
    names += tensor_names(cfg)
    if not cfg['tied_output']:
        names.append(('output.weight', [len(tgt_vocab), cfg['d_model']]))
    names.append(('output.bias', [len(tgt_vocab)]))
    header = {'__metadata__': {
        'format': 'attnscope', 'format_version': '1', 'name': 'fuzz-seed',
        'config': json.dumps(cfg, separators=(',', ':')),
        'tokenizer': json.dumps(tokenizer, separators=(',', ':'), ensure_ascii=False),
        'src_vocab': json.dumps(src_vocab, ensure_ascii=False),
        'tgt_vocab': json.dumps(tgt_vocab, ensure_ascii=False)}}
    data = bytearray()
    for name, shape in names:
        n = 1
        for s in shape:
            n *= s
        values = [rng.uniform(-1, 1) for _ in range(n)]
        if name.endswith('norm.weight'):
            values = [1.0 + v / 4 for v in values]
        begin = len(data)
        data += struct.pack(f'<{n}{"f" if dtype == "F32" else "e"}', *values)
        header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [begin, len(data)]}
    text = json.dumps(header, separators=(',', ':'), ensure_ascii=False).encode()
    text += b' ' * (-len(text) % 8)
    return struct.pack('<Q', len(text)) + text + bytes(data)


def config(**over):
    cfg = {'d_model': 4, 'n_heads': 2, 'd_ff': 6, 'n_encoder_layers': 1, 'n_decoder_layers': 1,
           'activation': 'relu', 'norm': 'post', 'positions': 'sinusoidal', 'max_positions': 8,
           'embedding_scale': 2.0, 'shared_embeddings': False, 'tied_output': False,
           'layer_norm_eps': 1e-5, 'src_append_eos': True,
           'special_tokens': {'pad': 0, 'unk': 1, 'bos': 2, 'eos': 3}}
    cfg.update(over)
    return cfg


SPECIALS = ['<pad>', '<unk>', '<s>', '</s>']


def main():
    out = HERE / 'corpus' / 'model'
    out.mkdir(parents=True, exist_ok=True)
    word = {'type': 'word', 'lowercase': True, 'split_punctuation': True}
    bpe = {'type': 'bpe', 'lowercase': False, 'merges': ['▁ a', 'b c', '▁a bc', 'ü ß']}
    bpe_vocab = SPECIALS + ['▁', '▁a', 'bc', '▁abc', 'üß', 'a', 'b', 'c']
    seeds = {
        'word_post_sin_f32': model(config(), word, SPECIALS + ['i', 'eat', 'apple', '!'],
                                   SPECIALS + ['ich', 'esse', 'apfel'], 'F32', 1),
        'bpe_pre_learned_shared_f16': model(
            config(norm='pre', positions='learned', shared_embeddings=True, tied_output=True,
                   activation='gelu', n_heads=1, src_append_eos=False),
            bpe, bpe_vocab, bpe_vocab, 'F16', 2),
        'word_2layers_f16': model(config(n_encoder_layers=2, n_decoder_layers=2, d_model=2, n_heads=2, d_ff=2,
                                         max_positions=3),
                                  {'type': 'word'}, SPECIALS + ['x'], SPECIALS + ['y'], 'F16', 3),
    }
    for name, b in seeds.items():
        (out / f'{name}.safetensors').write_bytes(b)

    text = HERE / 'corpus' / 'tokenizer'
    text.mkdir(parents=True, exist_ok=True)
    sentences = {
        'ascii': b'I can eat apple!',
        'german': 'Zwei junge weiße Männer sind im Freien.'.encode(),
        'emoji_mixed_scripts': 'a 🙂 日本語 ελληνικά عربى ▁x'.encode(),
        'whitespace_controls': b' \t\n\r\v\f a\x00b\x01\x7f  ',
        'invalid_utf8': b'\xff\xfe \xc0\xaf \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80 ok',
        'merges_then_text': '▁ a\nb c\n▁a bc\nü ß\nbad\x00abc üß ▁a'.encode(),
    }
    for name, b in sentences.items():
        (text / name).write_bytes(b)

    # fuzz_decode reads its bytes as choices (model shape, weights, options, API calls).
    decode = HERE / 'corpus' / 'decode'
    decode.mkdir(parents=True, exist_ok=True)
    rng = random.Random(4)
    choices = {'zeros': bytes(256), 'ramp': bytes(range(256)) * 2,
               'random': bytes(rng.randrange(256) for _ in range(1024))}
    for name, b in choices.items():
        (decode / name).write_bytes(b)

    # fuzz_sentencepiece: an even first byte and a .model file (the small goldens of
    # models/goldens/make_sentencepiece_goldens.py), or an odd one and a sentence.
    spm = HERE / 'corpus' / 'sentencepiece'
    spm.mkdir(parents=True, exist_ok=True)
    goldens = HERE.parent / 'golden' / 'sentencepiece'
    for name in ('identity', 'bytes'):
        (spm / f'model_{name}').write_bytes(b'\x00' + (goldens / f'{name}.model').read_bytes())
    spm_texts = {
        'caption': 'A man in a blue shirt is riding a bike along the beach.'.encode(),
        'nfkc_mixed': 'ＡＢＣ ﬁsh ①② café e\u0301 日本語 😀 \u3000 x'.encode(),
        'whitespace': '  lead \t tab\n new  \u00a0 trail  '.encode(),
        'user_symbols': '<sep>New York[MASK]@@ab <unk> <s> \u2581\u2581'.encode(),
        'invalid_utf8': b'caf\xc3\xa9\xc3 \xff\xfe \xed\xa0\x80 \xf0\x9f\x98',
    }
    for name, b in spm_texts.items():
        (spm / f'text_{name}').write_bytes(b'\x01' + b)


if __name__ == '__main__':
    main()
