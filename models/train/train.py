#!/usr/bin/python3
"""Train the shipped models with the PyTorch reference (models/reference/attnscope_ref) and export them.

    /usr/bin/python3 models/train/train.py toy                         # toy-en-de + training snapshots, ~1 min
    /usr/bin/python3 models/train/train.py multi30k --src en --tgt de  # multi30k-en-de
    /usr/bin/python3 models/train/train.py multi30k --src de --tgt en  # multi30k-de-en
    /usr/bin/python3 models/train/train.py mlm                         # multi30k-en-mlm: a small BERT
    /usr/bin/python3 models/train/train.py lm                          # multi30k-en-gpt: a caption writer

The RNN encoder-decoder family (models/FORMAT.md, "The RNN family") trains through the same
two paths with `--family rnn` and its options (--cell, --hidden, --embed, --encoder-hidden,
--rnn-layers, --bidirectional, --attention, --score, --attention-dim, --input-feeding,
--local-window):
    /usr/bin/python3 models/train/train.py toy --family rnn --attention bahdanau --score additive   # toy-rnn-bahdanau-additive
    /usr/bin/python3 models/train/train.py multi30k --family rnn --src en --tgt de --threads 1     # build/multi30k-rnn-en-de.*

Multi30k runs write only under build/ (checkpoint, log, candidate weights: the best epoch and
the average of the last --average epochs); a shipped model is replaced by copying a candidate
into models/ deliberately, with its log.

Never part of CI or `npm test`: the exported files are committed and used as they are.
Data (Multi30k, the toy grammar) comes from the folder given by --data DIR (default
../shared/data beside the checkout; models/tools/shared_data.py). Needs Debian's python3-torch
(+ libopenblas0-pthread for speed); run with /usr/bin/python3.
"""

import argparse
import gzip
import json
import math
import random
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "models" / "train"), str(ROOT / "models" / "reference"), str(ROOT / "models" / "tools")]

from attnscope_ref import safetensors_io  # noqa: E402
from attnscope_ref.export import export  # noqa: E402
from attnscope_ref import bert  # noqa: E402
from attnscope_ref import gpt  # noqa: E402
from attnscope_ref.model import Transformer  # noqa: E402
from attnscope_ref.rnn import RNNSeq2Seq, complete_config as complete_rnn_config  # noqa: E402
from attnscope_ref.wordpiece import DEFAULT_SPEC as WORDPIECE_SPEC, WordPiece, basic_tokenize  # noqa: E402
from attnscope_ref.tokenizer import BOS, EOS, PAD, UNK, Tokenizer, build_bpe_vocab, build_word_vocab, train_bpe  # noqa: E402
import shared_data  # noqa: E402
import training_state  # noqa: E402
from training_state import inverse_sqrt, linear_decay  # noqa: E402


def relative(path):
    """`path` as the logs show it: relative to the repository root when it lies inside."""
    path = Path(path).resolve()
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def read_lines(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


class Log:
    """Prints and appends to <folder>/<name>.log, so the model card can cite the run.

    Multi30k runs log under build/ (training runs beside the tests and never writes into the
    checkout); the log is copied to models/logs/ together with the weights it produced."""

    def __init__(self, name, append=False, folder=ROOT / "models" / "logs"):
        folder.mkdir(parents=True, exist_ok=True)
        self.file = open(folder / f"{name}.log", "a" if append else "w", encoding="utf-8")
        self.start = time.time()

    def __call__(self, *parts):
        line = f"[{time.time() - self.start:7.1f}s] " + " ".join(str(p) for p in parts)
        print(line, flush=True)
        self.file.write(line + "\n")
        self.file.flush()


# ------------------------------------------------------------------------------------ batching

def encode_pairs(src_tok, tgt_tok, pairs, max_len):
    out = []
    for s, t in pairs:
        _, s_ids, _ = src_tok.encode(s)
        _, t_ids, _ = tgt_tok.encode(t)
        s_ids = s_ids + [EOS]
        t_ids = [BOS] + t_ids + [EOS]
        if 1 < len(s_ids) <= max_len and len(t_ids) <= max_len + 1:
            out.append((s_ids, t_ids))
    return out


def batches(examples, max_tokens, shuffle, rng):
    """Length-bucketed batches of about `max_tokens` target tokens (less padding, faster on CPU)."""
    order = sorted(range(len(examples)), key=lambda i: (len(examples[i][1]), len(examples[i][0])))
    groups, cur, cur_max = [], [], 0
    for i in order:
        n = max(cur_max, len(examples[i][1]), len(examples[i][0]))
        if cur and n * (len(cur) + 1) > max_tokens:
            groups.append(cur)
            cur, n = [], max(len(examples[i][1]), len(examples[i][0]))
        cur.append(i)
        cur_max = n
    if cur:
        groups.append(cur)
    if shuffle:
        rng.shuffle(groups)
    for g in groups:
        src = [examples[i][0] for i in g]
        tgt = [examples[i][1] for i in g]
        s_len, t_len = max(map(len, src)), max(map(len, tgt))
        yield (torch.tensor([x + [PAD] * (s_len - len(x)) for x in src]),
               torch.tensor([x + [PAD] * (t_len - len(x)) for x in tgt]))


def loss_on(model, src, tgt, smoothing):
    device = next(model.parameters()).device
    src, tgt = src.to(device), tgt.to(device)
    logits = model(src, tgt[:, :-1])
    gold = tgt[:, 1:]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), gold.reshape(-1), ignore_index=PAD,
                           label_smoothing=smoothing, reduction="sum"), int((gold != PAD).sum())


@torch.no_grad()
def evaluate_loss(model, examples, max_tokens):
    model.eval()
    total, count = 0.0, 0
    for src, tgt in batches(examples, max_tokens, False, None):
        loss, n = loss_on(model, src, tgt, 0.0)
        total += float(loss)
        count += n
    model.train()
    return total / max(count, 1)


# ----------------------------------------------------------------------------------- the toy

def rnn_config(args, max_positions):
    """The RNN family's config from the command line (FORMAT.md field names)."""
    d_encoder = args.encoder_hidden or (args.hidden // 2 if args.bidirectional else args.hidden)
    return complete_rnn_config({
        "architecture": "rnn", "cell": args.cell, "d_embed": args.embed, "d_encoder": d_encoder,
        "d_hidden": args.hidden, "n_encoder_layers": args.rnn_layers, "n_decoder_layers": args.rnn_layers,
        "bidirectional": args.bidirectional, "attention": args.attention,
        "score": args.score if args.attention != "none" else "none",
        "d_attention": (args.attention_dim or args.hidden) if args.score == "additive" and args.attention != "none" else 0,
        "input_feeding": args.input_feeding, "local_window": args.local_window,
        "max_positions": max_positions, "shared_embeddings": getattr(args, "shared_embeddings", False)})


def rnn_words(c):
    """The RNN config in words, for descriptions and logs."""
    enc = f"{'bidirectional ' if c['bidirectional'] else ''}{c['cell'].upper()} encoder {c['d_encoder']}" + (
        " per direction" if c["bidirectional"] else "")
    if c["attention"] == "none":
        att = "no attention (the decoder sees the encoder's final state only)"
    else:
        att = f"{c['attention'].capitalize()} attention, {c['score'].replace('_', ' ')} score" + (
            ", input feeding" if c["input_feeding"] else "") + (
            f", local-p window {c['local_window']}" if c["local_window"] else "")
    return (f"{enc} x {c['n_encoder_layers']} layer(s), {c['cell'].upper()} decoder {c['d_hidden']} x "
            f"{c['n_decoder_layers']}, embeddings {c['d_embed']}, {att}")


def rnn_name(args):
    return "rnn-none" if args.attention == "none" else f"rnn-{args.attention}-{args.score.replace('_', '-')}"


def train_toy(args):
    """The seed article's model: one layer, one head, 64 dims, on the 36-pair toy grammar.
    With --family rnn: an RNN encoder-decoder (toy-rnn-<attention>-<score>, no snapshots)."""
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    rnn = args.family == "rnn"
    model_name = args.name or (f"toy-{rnn_name(args)}" if rnn else "toy-en-de")
    data = shared_data.folder(args.data, "toy/eng_de.csv")  # before Log, which rewrites the model's log
    log = Log(model_name)
    pairs = [tuple(line.split(",")) for line in read_lines(data / "toy" / "eng_de.csv") if line.strip()]
    spec = {"type": "word", "lowercase": True, "split_punctuation": True}
    src_vocab = build_word_vocab([p[0] for p in pairs])
    tgt_vocab = build_word_vocab([p[1] for p in pairs])
    src_tok, tgt_tok = Tokenizer(spec, src_vocab), Tokenizer(spec, tgt_vocab)
    if rnn:
        config = rnn_config(args, 16)
        model = RNNSeq2Seq(config, len(src_vocab), len(tgt_vocab))
        n_params = sum(p.numel() for p in model.parameters())
        description = (f"Toy English->German RNN encoder-decoder: {rnn_words(model.config)}; {n_params:,} parameters, "
                       f"trained on the 36-pair grammar of shared/data/toy/eng_de.csv.")
        log(f"{model_name}: {n_params} params, config {json.dumps(model.config)}")
    else:
        config = {"d_model": 64, "n_heads": 1, "d_ff": 128, "n_encoder_layers": 1, "n_decoder_layers": 1,
                  "activation": "relu", "norm": "post", "positions": "sinusoidal", "max_positions": 16,
                  "embedding_scale": 8.0, "shared_embeddings": False, "tied_output": False}
        model = Transformer(config, len(src_vocab), len(tgt_vocab))
        description = ("Toy English->German model of the seed article: 1 layer, 1 head, 64 dims, trained on the "
                       "36-pair grammar of shared/data/toy/eng_de.csv.")
    examples = encode_pairs(src_tok, tgt_tok, pairs, 15)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    out_dir = ROOT / "models"
    snapshots = [] if rnn else sorted(set(int(x) for x in args.snapshots.split(",")))

    def save(path, label):
        export(model, model.config, spec, src_vocab, tgt_vocab, path, dtype="F32", name=label,
               description=description)

    def check():
        model.eval()
        ok = 0
        for s, t in pairs:
            _, ids, _ = src_tok.encode_source(s, True)
            out = model.greedy_decode(ids, 12)["output_ids"]
            ok += tgt_tok.decode([i for i in out if i != EOS]) == t
        model.train()
        return ok

    for epoch in range(args.epochs + 1):
        if epoch in snapshots:
            save(out_dir / "snapshots" / f"toy-en-de.epoch{epoch:03d}.safetensors", f"toy-en-de epoch {epoch}")
        if epoch == args.epochs:
            break
        total, count = 0.0, 0
        for src, tgt in batches(examples, args.batch_tokens, True, rng):
            loss, n = loss_on(model, src, tgt, 0.0)
            opt.zero_grad()
            (loss / n).backward()
            if args.clip_norm:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_norm)
            opt.step()
            total, count = total + float(loss), count + n
        if epoch % 10 == 9 or epoch < 3:
            log(f"epoch {epoch + 1} loss {total / count:.4f} exact {check()}/{len(pairs)}")
    save(out_dir / f"{model_name}.safetensors", model_name)
    log(f"final: {check()}/{len(pairs)} training sentences translated exactly")


# ------------------------------------------------------------------------------------ multi30k

def cached_bpe(lines, cache_name, n_merges, log):
    """-> (the "bpe" tokenizer spec, its vocabulary): merges trained on `lines` once, then read
    from models/logs/<cache_name>.json (the run that ships a model commits its merges)."""
    cache = ROOT / "models" / "logs" / f"{cache_name}.json"
    if cache.exists():
        merges = json.loads(cache.read_text())
    else:
        t0 = time.time()
        merges = train_bpe(lines, n_merges)
        cache.write_text(json.dumps(merges, ensure_ascii=False))
        log(f"trained {len(merges)} BPE merges in {time.time() - t0:.0f}s")
    return {"type": "bpe", "lowercase": False, "merges": merges}, build_bpe_vocab(lines, merges)


def english_run(args):
    """Seeds, the run's log (build/<name>.log) and Multi30k's English train and val: what the
    one-stack models (mlm, lm) start from. -> (rng, log, train lines, val lines)"""
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    mdir = shared_data.folder(args.data, "multi30k/train.en.gz", "multi30k/val.en.gz") / "multi30k"
    log = Log(args.name, append=args.resume, folder=ROOT / "build")
    return rng, log, read_lines(mdir / "train.en.gz"), read_lines(mdir / "val.en.gz")


def train_multi30k(args):
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    name = args.name or (f"multi30k-rnn-{args.src}-{args.tgt}" if args.family == "rnn" else f"multi30k-{args.src}-{args.tgt}")
    mdir = shared_data.folder(args.data, *(f"multi30k/{split}.{lang}.gz" for split in ("train", "val")
                                           for lang in (args.src, args.tgt))) / "multi30k"
    log = Log(name, append=args.resume, folder=ROOT / "build")
    train = list(zip(read_lines(mdir / f"train.{args.src}.gz"), read_lines(mdir / f"train.{args.tgt}.gz")))
    val = list(zip(read_lines(mdir / f"val.{args.src}.gz"), read_lines(mdir / f"val.{args.tgt}.gz")))

    # One joint BPE for both languages (cached: it does not depend on the direction).
    spec, vocab = cached_bpe([s for s, _ in train] + [t for _, t in train], f"bpe-multi30k-{args.merges}",
                             args.merges, log)
    tok = Tokenizer(spec, vocab)
    if args.family == "rnn":
        args.shared_embeddings = True  # one joint BPE vocabulary: one embedding matrix
        config = rnn_config(args, args.max_positions)
        model = RNNSeq2Seq(config, len(vocab), len(vocab), dropout=args.dropout)
        config = model.config
        # PyTorch's default init (uniform +-1/sqrt(hidden)) for the cells; embeddings as the transformer's.
        torch.nn.init.normal_(model.src_embed.weight, std=args.embed ** -0.5)
    else:
        config = {"d_model": args.d_model, "n_heads": args.heads, "d_ff": args.d_ff,
                  "n_encoder_layers": args.layers, "n_decoder_layers": args.layers, "activation": "relu",
                  "norm": "pre", "positions": "sinusoidal", "max_positions": args.max_positions,
                  "embedding_scale": math.sqrt(args.d_model), "shared_embeddings": True, "tied_output": True}
        model = Transformer(config, len(vocab), len(vocab), dropout=args.dropout)
        for p in model.parameters():
            if p.dim() > 1:
                torch.nn.init.xavier_uniform_(p)
        torch.nn.init.normal_(model.src_embed.weight, std=args.d_model ** -0.5)
    if args.init_from:
        # Continue from a shipped model (f16 weights, fresh optimiser): how training carries
        # over to a machine where build/<name>.ckpt.pt does not exist.
        tensors, meta = safetensors_io.load(args.init_from)
        if json.loads(meta["tokenizer"])["merges"] != spec["merges"]:
            raise SystemExit(f"{args.init_from} was trained with other BPE merges")
        model.load_state_dict({k: v.to(torch.float32) for k, v in tensors.items()})
        log(f"initialised from {relative(args.init_from)}")
    if args.init_embeddings_from:
        # The joint BPE is shared by both directions, so the reverse model's subword embeddings
        # (input and output, tied) are a head start; its layers are not (they read the other language).
        tensors, meta = safetensors_io.load(args.init_embeddings_from)
        if json.loads(meta["tokenizer"])["merges"] != spec["merges"]:
            raise SystemExit(f"{args.init_embeddings_from} was trained with other BPE merges")
        embeddings = {k: v.to(torch.float32) for k, v in tensors.items() if "embed" in k}
        model.load_state_dict(embeddings, strict=False)
        log(f"embeddings {sorted(embeddings)} initialised from {relative(args.init_embeddings_from)}")
    n_params = sum(p.numel() for p in model.parameters())
    log(f"{name}: vocab {len(vocab)}, params {n_params / 1e6:.2f}M, config {json.dumps(config)}")
    model.to(args.device)

    train_ex = encode_pairs(tok, tok, train, args.max_positions - 1)
    val_ex = encode_pairs(tok, tok, val, args.max_positions - 1)
    log(f"train {len(train_ex)}/{len(train)} pairs, val {len(val_ex)}/{len(val)} pairs")

    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    # The lr follows the global step (not a scheduler's own counter), so that a run resumed from
    # a committed state (models/train/training_state.py) keeps its place in the schedule.
    fresh_optimiser_step = None
    # --cpu-minutes counts this process's CPU time, not the wall clock, so two runs on a shared
    # machine get the same budget however busy the other core is (with one torch thread).
    clock = time.process_time if args.cpu_minutes else time.time
    deadline = clock() + (args.cpu_minutes or args.minutes) * 60
    best, best_epoch, step, first_epoch = float("inf"), -1, 0, 1
    best_state = None
    recent = []  # the last --average epochs' weights, for checkpoint averaging
    # Training on 2 CPU cores takes longer than one sitting: a checkpoint after every epoch
    # (under build/, not committed) lets `--resume` carry on where the last run stopped.
    ckpt_path = ROOT / "build" / f"{name}.ckpt.pt"
    state_path = training_state.state_path(name)
    recipe = {"src": args.src, "tgt": args.tgt, "merges": args.merges, "lr": args.lr, "warmup": args.warmup,
              "batch_tokens": args.batch_tokens, "dropout": args.dropout, "label_smoothing": args.label_smoothing}
    if args.resume and ckpt_path.exists():
        ckpt = torch.load(ckpt_path, weights_only=False, map_location=args.device)
        if "config" in ckpt:  # older checkpoints hold no config or recipe to compare
            try:
                training_state.require_same_run(ckpt_path, ckpt["config"], ckpt["recipe"], model.config, recipe)
            except ValueError as e:
                raise SystemExit(str(e))
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        best, best_epoch, step, first_epoch = ckpt["best"], ckpt["best_epoch"], ckpt["step"], ckpt["epoch"] + 1
        best_state = ckpt["best_state"]
        rng.setstate(ckpt["rng"])
        recent = ckpt.get("recent", [])
        fresh_optimiser_step = ckpt.get("fresh_optimiser_step")
        log(f"resumed from {relative(ckpt_path)} after epoch {ckpt['epoch']} (best val {best:.3f} at epoch {best_epoch})")
    elif args.resume and state_path.exists():
        try:
            where = training_state.load_state(state_path, model, model.config, recipe)
        except ValueError as e:
            raise SystemExit(str(e))
        best, best_epoch, step, first_epoch = where["best"], where["best_epoch"], where["step"], where["epoch"] + 1
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
        rng.setstate(training_state.rng_state_from_json(where["rng"]))
        fresh_optimiser_step = step
        log(f"resumed from {state_path.relative_to(ROOT)} after epoch {where['epoch']} (step {step}, best val "
            f"{best:.3f} at epoch {best_epoch}); fresh Adam, lr ramped up again over {args.rewarm} steps; "
            f"that state's log follows:\n{where['log'].rstrip()}")
    for epoch in range(first_epoch, args.epochs + 1):
        t0, total, count = time.time(), 0.0, 0
        for src, tgt in batches(train_ex, args.batch_tokens, True, rng):
            for group in opt.param_groups:
                group["lr"] = args.lr * training_state.lr_factor(step, args.warmup, fresh_optimiser_step, args.rewarm)
            loss, n = loss_on(model, src, tgt, args.label_smoothing)
            opt.zero_grad()
            (loss / n).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            total, count = total + float(loss), count + n
            if clock() > deadline:
                break
        val_loss = evaluate_loss(model, val_ex, args.batch_tokens)
        log(f"epoch {epoch} step {step} train {total / count:.3f} val {val_loss:.3f} "
            f"ppl {math.exp(val_loss):.2f} lr {opt.param_groups[0]['lr']:.2e} ({time.time() - t0:.0f}s)")
        if val_loss < best:
            best, best_epoch = val_loss, epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            save_model(model, config, spec, vocab, name, args, n_params, epoch, val_loss, "best")
        # Checkpoint averaging (the mean of the last N epochs' weights) costs nothing while
        # training and usually beats the last single checkpoint; it is judged on val like the rest.
        recent = (recent + [{k: v.detach().clone() for k, v in model.state_dict().items()}])[-args.average:]
        if len(recent) > 1:
            current = {k: v.clone() for k, v in model.state_dict().items()}
            model.load_state_dict({k: sum(r[k] for r in recent) / len(recent) for k in current})
            avg_loss = evaluate_loss(model, val_ex, args.batch_tokens)
            log(f"epoch {epoch} average of last {len(recent)}: val {avg_loss:.3f} ppl {math.exp(avg_loss):.2f}")
            save_model(model, config, spec, vocab, name, args, n_params, epoch, avg_loss, "avg",
                       f"average of epochs {epoch - len(recent) + 1}-{epoch}")
            model.load_state_dict(current)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "best": best,
                    "best_epoch": best_epoch, "step": step, "epoch": epoch, "best_state": best_state,
                    "rng": rng.getstate(), "recent": recent, "fresh_optimiser_step": fresh_optimiser_step,
                    "config": model.config, "recipe": recipe}, ckpt_path)
        if epoch - best_epoch >= args.patience:
            log(f"early stop: no val improvement for {args.patience} epochs")
            break
        if clock() > deadline:
            log("time budget reached")
            break
    model.load_state_dict(best_state)
    log(f"best epoch {best_epoch}, val loss {best:.3f}; candidates build/{name}.best.safetensors and "
        f"build/{name}.avg.safetensors (F16): copy the better one (on val) to models/ deliberately")


# ------------------------------------------------- the checkpoint of the single-model runs (mlm, lm)

def resume_run(args, name, model, opt, sched, rng, best, log, what):
    """-> (epoch, best): after the last epoch of build/<name>.ckpt.pt with --resume, else (0, best)."""
    ckpt = ROOT / "build" / f"{name}.ckpt.pt"
    if not (args.resume and ckpt.exists()):
        return 0, best
    state = torch.load(ckpt, map_location=args.device)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    sched.load_state_dict(state["sched"])
    rng.setstate(state["rng"])
    log(f"resumed after epoch {state['epoch']}, best val {what} {state['best']:.4f}")
    return state["epoch"], state["best"]


def save_run(name, model, opt, sched, rng, epoch, best):
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "epoch": epoch, "best": best, "rng": rng.getstate()}, ROOT / "build" / f"{name}.ckpt.pt")


def run_deadline(args):
    """The clock a run's budget counts on, and when the budget ends."""
    clock = time.process_time if args.cpu_minutes else time.time
    return clock, clock() + 60 * (args.cpu_minutes or args.minutes)


# ----------------------------------------------------------------------- masked LM (BERT family)

def build_wordpiece_vocab(sentences, min_count):
    """[PAD] [UNK] [CLS] [SEP] [MASK], every character alone and as a "##" continuation (so that
    every word can be cut), then every basic-tokenizer word seen at least `min_count` times."""
    from collections import Counter
    counts = Counter(w for s in sentences for w in basic_tokenize(s, True))
    chars = sorted({c for w in counts for c in w})
    words = [w for w, n in counts.most_common() if n >= min_count and len(w) > 1]
    return bert.SPECIALS + chars + ["##" + c for c in chars] + words


def mask_batch(ids, rng, vocab_size, first_word, p=0.15):
    """BERT's masking (Devlin et al. 2019, 3.1): each piece (not [CLS], [SEP], [PAD]) is chosen
    with probability p, at least one per sentence; a chosen piece becomes [MASK] 80% of the time,
    a random piece 10%, stays 10%. -> (inputs, labels with -100 where not chosen)."""
    inputs, labels = ids.clone(), torch.full_like(ids, -100)
    special = {bert.SPECIALS.index(t) for t in ("[PAD]", "[CLS]", "[SEP]")}
    mask_id = bert.SPECIALS.index("[MASK]")
    for b in range(ids.shape[0]):
        cand = [t for t in range(ids.shape[1]) if int(ids[b, t]) not in special]
        chosen = [t for t in cand if rng.random() < p] or ([rng.choice(cand)] if cand else [])
        for t in chosen:
            labels[b, t] = ids[b, t]
            r = rng.random()
            if r < 0.8:
                inputs[b, t] = mask_id
            elif r < 0.9:
                inputs[b, t] = rng.randrange(first_word, vocab_size)
    return inputs, labels


def mlm_step(model, ids, segments, rng, vocab_size, first_word):
    inputs, labels = mask_batch(ids, rng, vocab_size, first_word)  # on the CPU: Python's rng draws
    device = next(model.parameters()).device
    ids, segments, inputs, labels = (t.to(device) for t in (ids, segments, inputs, labels))
    pad = ids == bert.SPECIALS.index("[PAD]")
    hidden = model.batch_hidden(inputs, segments, pad)
    chosen = labels != -100
    logits = model.mlm_logits(hidden[chosen])
    gold = labels[chosen]
    loss = F.cross_entropy(logits, gold, reduction="sum")
    return loss, int(chosen.sum()), int((logits.argmax(-1) == gold).sum())


@torch.no_grad()
def evaluate_mlm(model, examples, max_tokens, vocab_size, first_word):
    """Masked-piece accuracy and loss on `examples`, with the same masks every time (seed 1234)."""
    model.eval()
    rng = random.Random(1234)
    total, count, correct = 0.0, 0, 0
    for ids, segments in batches(examples, max_tokens, False, None):
        loss, n, ok = mlm_step(model, ids, segments, rng, vocab_size, first_word)
        total, count, correct = total + float(loss), count + n, correct + ok
    model.train()
    return total / max(count, 1), correct / max(count, 1)


def train_mlm(args):
    """A small BERT: masked-LM on the English side of Multi30k train, masked-piece
    accuracy on val. Writes build/<name>.log and build/<name>.best.safetensors (F16, the best val
    accuracy); shipping is a deliberate copy to models/ with the log, as for the translators."""
    name = args.name
    rng, log, train, val = english_run(args)
    vocab = build_wordpiece_vocab(train, args.min_count)
    tok = WordPiece(WORDPIECE_SPEC, vocab)
    index = {p: i for i, p in enumerate(vocab)}
    cls, sep = index["[CLS]"], index["[SEP]"]

    def pieces(line):
        return [index[p] for p in tok.split(line)]

    def single(a):
        """[CLS] A [SEP], segment 0: how the page and the val figure read a sentence."""
        ids = [cls] + a[: args.max_positions - 2] + [sep]
        return ids, [0] * len(ids)

    def pair(a, b):
        """[CLS] A [SEP] B [SEP], segments 0 then 1, as BERT's inputs (Devlin et al. 2019, 3.2):
        [SEP] then separates two texts, where its attention patterns come from. Multi30k's
        captions are independent, so B is another caption and there is no next-sentence loss."""
        a = a[: max(1, args.max_positions - 3 - len(b))]
        ids = ([cls] + a + [sep] + b + [sep])[: args.max_positions]
        ids[-1] = sep
        first = len(a) + 2
        return ids, [0] * first + [1] * (len(ids) - first)

    train_pieces = [x for x in map(pieces, train) if x]
    val_ex = [single(x) for x in map(pieces, val) if x]

    def epoch_examples():
        """A fresh draw each epoch: a share --pairs of the captions go in twos, the rest alone."""
        order = list(range(len(train_pieces)))
        rng.shuffle(order)
        n_paired = int(len(order) * args.pairs) // 2 * 2
        out = [pair(train_pieces[i], train_pieces[j]) for i, j in zip(order[:n_paired:2], order[1:n_paired:2])]
        return out + [single(train_pieces[i]) for i in order[n_paired:]]

    train_ex = epoch_examples()
    first_word = len(bert.SPECIALS)
    config = bert.complete_config({"d_model": args.d_model, "n_heads": args.heads, "d_ff": args.d_ff,
                                   "n_layers": args.layers, "max_positions": args.max_positions, "pooler": False},
                                  vocab)
    model = bert.Bert(config, len(vocab), dropout=args.dropout)
    for n, p in model.named_parameters():  # BERT's initialisation: N(0, 0.02), LayerNorm 1 / 0
        if p.dim() > 1:
            torch.nn.init.normal_(p, std=0.02)
        elif n.endswith("norm.weight"):
            torch.nn.init.ones_(p)
        else:
            torch.nn.init.zeros_(p)
    if args.init_from:
        # Continue from a shipped model (same vocabulary: it is rebuilt from train the same way).
        tensors, meta = safetensors_io.load(args.init_from)
        if json.loads(meta["src_vocab"]) != vocab:
            raise SystemExit(f"{args.init_from} has another vocabulary (--min-count?)")
        model.load_state_dict({k: v.to(torch.float32) for k, v in tensors.items()})
        log(f"initialised from {relative(args.init_from)}")
    model.to(args.device)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"{name}: {len(train_pieces)} train / {len(val_ex)} val sentences ({args.pairs:.0%} of train in pairs), vocabulary {len(vocab)} pieces, "
        f"{args.layers} layers x {args.heads} heads x {args.d_model}, {n_params / 1e6:.2f}M parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-6, weight_decay=0.01)
    if args.schedule == "linear":
        # The decay ends with --epochs; an epoch's step count is that of the first draw.
        total = args.epochs * sum(1 for _ in batches(train_ex, args.batch_tokens, False, None))
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: linear_decay(st, args.warmup, total))
    else:
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: inverse_sqrt(st, args.warmup))
    epoch, best = resume_run(args, name, model, opt, sched, rng, -1.0, log, "accuracy")
    clock, deadline = run_deadline(args)
    model.train()
    while epoch < args.epochs and clock() < deadline:
        epoch += 1
        total, count, correct, steps = 0.0, 0, 0, 0
        if epoch > 1:
            train_ex = epoch_examples()
        for ids, segments in batches(train_ex, args.batch_tokens, True, rng):
            loss, n, ok = mlm_step(model, ids, segments, rng, len(vocab), first_word)
            opt.zero_grad()
            (loss / max(n, 1)).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total, count, correct, steps = total + float(loss), count + n, correct + ok, steps + 1
            if clock() > deadline:
                break
        val_loss, val_acc = evaluate_mlm(model, val_ex, args.batch_tokens, len(vocab), first_word)
        log(f"epoch {epoch}: {steps} steps, train loss {total / max(count, 1):.3f} acc {correct / max(count, 1):.4f}; "
            f"val loss {val_loss:.3f} masked-piece accuracy {val_acc:.4f}")
        if val_acc > best:
            best = val_acc
            model.eval()
            bert.export(model, config, vocab, ROOT / "build" / f"{name}.best.safetensors", dtype="F16",
                        name="multi30k-en-mlm",
                        description=(f"Masked LM on Multi30k English: {args.layers} layers x {args.heads} heads x "
                                     f"{args.d_model}, FFN {args.d_ff}, WordPiece ({len(vocab)} pieces), "
                                     f"{n_params / 1e6:.2f}M parameters; epoch {epoch}, val masked-piece accuracy "
                                     f"{val_acc:.4f}."))
            model.train()
        save_run(name, model, opt, sched, rng, epoch, best)
    log(f"best val masked-piece accuracy {best:.4f}: build/{name}.best.safetensors (F16); copy it to models/ "
        "deliberately, with this log")



# ------------------------------------------------------------------- language model (decoder-only)

def train_lm(args):
    """A small GPT on the English side of Multi30k: each caption is "<s> pieces </s>", the loss is
    next-piece cross-entropy, the figure val perplexity per piece (</s> included, <s> not).
    Writes build/<name>.log and build/<name>.best.safetensors (F16, the best val loss)."""
    name = args.name
    rng, log, train, val = english_run(args)
    # An English-only BPE: a joint one would spend the vocabulary on German pieces never seen.
    spec, vocab = cached_bpe(train, f"bpe-multi30k-en-{args.merges}", args.merges, log)
    tok = Tokenizer(spec, vocab)

    def encode(lines):
        out = []
        for line in lines:
            ids = [BOS] + tok.encode(line)[1] + [EOS]
            if 2 < len(ids) <= args.max_positions:
                out.append((ids, ids))  # batches() pads pairs; the LM reads the second
        return out

    train_ex, val_ex = encode(train), encode(val)
    config = gpt.complete_config({"d_model": args.d_model, "n_heads": args.heads, "d_ff": args.d_ff,
                                  "n_layers": args.layers, "max_positions": args.max_positions,
                                  "special_tokens": {"pad": PAD, "unk": UNK, "bos": BOS, "eos": EOS},
                                  "prepend_bos": True})  # it learns <s> first, and reads it so
    model = gpt.DecoderOnly(config, len(vocab), dropout=args.dropout)
    for n, p in model.named_parameters():  # GPT-2's initialisation: N(0, 0.02), LayerNorm 1 / 0
        if p.dim() > 1:
            torch.nn.init.normal_(p, std=0.02)
        elif n.endswith("norm.weight"):
            torch.nn.init.ones_(p)
        else:
            torch.nn.init.zeros_(p)
    model.to(args.device)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"{name}: {len(train_ex)} train / {len(val_ex)} val captions, vocabulary {len(vocab)} pieces, "
        f"{args.layers} layers x {args.heads} heads x {args.d_model}, FFN {args.d_ff}, {n_params / 1e6:.2f}M parameters")

    def loss_of(ids):
        ids = ids.to(args.device)
        pad = ids == PAD
        logits = model.batch_logits(ids[:, :-1], pad[:, :-1])
        gold = ids[:, 1:]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), gold.reshape(-1), ignore_index=PAD,
                               reduction="sum"), int((gold != PAD).sum())

    @torch.no_grad()
    def val_loss():
        model.eval()
        total, count = 0.0, 0
        for _, ids in batches(val_ex, args.batch_tokens, False, None):
            loss, n = loss_of(ids)
            total, count = total + float(loss), count + n
        model.train()
        return total / count

    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    total_steps = args.epochs * sum(1 for _ in batches(train_ex, args.batch_tokens, False, None))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: linear_decay(st, args.warmup, total_steps))
    epoch, best = resume_run(args, name, model, opt, sched, rng, float("inf"), log, "loss")
    clock, deadline = run_deadline(args)
    model.train()
    while epoch < args.epochs and clock() < deadline:
        epoch += 1
        t0, total, count, steps = time.time(), 0.0, 0, 0
        for _, ids in batches(train_ex, args.batch_tokens, True, rng):
            loss, n = loss_of(ids)
            opt.zero_grad()
            (loss / n).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total, count, steps = total + float(loss), count + n, steps + 1
            if clock() > deadline:
                break
        vl = val_loss()
        log(f"epoch {epoch}: {steps} steps, train loss {total / count:.3f}; val loss {vl:.4f} "
            f"perplexity per piece {math.exp(vl):.2f} lr {sched.get_last_lr()[0]:.2e} ({time.time() - t0:.0f}s)")
        if vl < best:
            best = vl
            model.eval()
            gpt.export(model, config, spec, vocab, ROOT / "build" / f"{name}.best.safetensors", dtype="F16",
                       name="multi30k-en-gpt",
                       description=(f"Caption writer: a decoder-only LM on Multi30k English, {args.layers} layers x "
                                    f"{args.heads} heads x {args.d_model}, FFN {args.d_ff}, English BPE "
                                    f"({len(vocab)} pieces), {n_params / 1e6:.2f}M parameters; epoch {epoch}, "
                                    f"val perplexity per piece {math.exp(vl):.2f}."),
                       generation={"strategy": "sample", "max_length": args.max_positions - 1})
            model.train()
        save_run(name, model, opt, sched, rng, epoch, best)
    log(f"best val loss {best:.4f} (perplexity per piece {math.exp(best):.2f}): build/{name}.best.safetensors "
        "(F16); copy it to models/ deliberately, with this log")


def save_model(model, config, spec, vocab, name, args, n_params, epoch, val_loss, kind, what=None):
    """Writes build/<name>.<kind>.safetensors (F16, the candidate) and .<kind>.f32.safetensors.

    Never models/: tests may run while training goes on, and a shipped file is replaced only by
    a deliberate copy (DEVELOPERS.md)."""
    if args.family == "rnn":
        # The no-attention twin ships beside the attentive model, so its name says what it lacks.
        twin = "none-" if config["attention"] == "none" else ""
        model_name = f"multi30k-rnn-{twin}{args.src}-{args.tgt}"
        architecture = f"{rnn_words(config)}"
    else:
        model_name = f"multi30k-{args.src}-{args.tgt}"
        architecture = (f"{args.layers}+{args.layers} layers, d_model {args.d_model}, {args.heads} heads, "
                        f"FFN {args.d_ff}, pre-norm")
    description = (f"Multi30k {args.src}->{args.tgt}: {architecture}, joint BPE ({len(spec['merges'])} merges), "
                   f"{n_params / 1e6:.2f}M parameters; {what or f'epoch {epoch}'}, val loss {val_loss:.3f}.")
    was_training = model.training
    model.eval()
    export(model, model.config, spec, vocab, vocab, ROOT / "build" / f"{name}.{kind}.safetensors", dtype="F16",
           name=model_name, description=description)
    # The f32 copy is for measuring what f16 storage costs in BLEU; it is not committed.
    export(model, model.config, spec, vocab, vocab, ROOT / "build" / f"{name}.{kind}.f32.safetensors",
           dtype="F32", name=model_name, description=description)
    model.train(was_training)


def add_compute_options(parser, threads):
    """Where a Multi30k or MLM run computes and for how long (both subcommands)."""
    parser.add_argument("--minutes", type=float, default=600, help="stop after this much training time")
    parser.add_argument("--cpu-minutes", type=float, help="stop after this much CPU time of this process instead")
    parser.add_argument("--threads", type=int, default=threads)
    parser.add_argument("--device", default="cpu", help="torch device to train on (cpu, cuda); the exported files are the same")


def add_family_options(parser, hidden, embed):
    parser.add_argument("--family", choices=("transformer", "rnn"), default="transformer",
                        help="model family (models/FORMAT.md); the options below are the RNN's")
    parser.add_argument("--cell", choices=("gru", "lstm"), default="gru")
    parser.add_argument("--hidden", type=int, default=hidden, help="decoder hidden size (d_hidden)")
    parser.add_argument("--embed", type=int, default=embed, help="embedding size (d_embed)")
    parser.add_argument("--encoder-hidden", type=int,
                        help="encoder size per direction (default: hidden, or hidden / 2 when bidirectional)")
    parser.add_argument("--rnn-layers", type=int, default=1, help="encoder and decoder layers")
    parser.add_argument("--bidirectional", action="store_true")
    parser.add_argument("--attention", choices=("bahdanau", "luong", "none"), default="bahdanau")
    parser.add_argument("--score", choices=("additive", "dot", "scaled_dot", "general", "cosine", "location"),
                        default="additive")
    parser.add_argument("--attention-dim", type=int, help="additive score's hidden size (default: hidden)")
    parser.add_argument("--input-feeding", action="store_true", help="Luong: h~ of the last step joins the input")
    parser.add_argument("--local-window", type=int, default=0, help="Luong's local-p window D (0: global)")


def add_single_model_options(parser, name, lr, warmup, batch_tokens, epochs):
    """The shape, recipe and run options the one-stack models (mlm, lm) share."""
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--d-ff", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--max-positions", type=int, default=64)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--lr", type=float, default=lr)
    parser.add_argument("--warmup", type=int, default=warmup)
    parser.add_argument("--batch-tokens", type=int, default=batch_tokens)
    parser.add_argument("--epochs", type=int, default=epochs)
    add_compute_options(parser, threads=1)
    parser.add_argument("--resume", action="store_true", help="continue from build/<name>.ckpt.pt if present")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--name", default=name)
    shared_data.add_option(parser)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="task", required=True)
    toy = sub.add_parser("toy")
    add_family_options(toy, hidden=64, embed=32)
    toy.add_argument("--name", help="model name (default toy-en-de, or toy-rnn-<attention>-<score>)")
    toy.add_argument("--epochs", type=int, default=200)
    toy.add_argument("--snapshots", default="0,1,3,10,30,100")
    toy.add_argument("--batch-tokens", type=int, default=24)
    toy.add_argument("--lr", type=float, default=1e-3)
    toy.add_argument("--clip-norm", type=float, default=0.0, help="gradient clipping (0: off)")
    toy.add_argument("--seed", type=int, default=1)
    shared_data.add_option(toy)
    m = sub.add_parser("multi30k")
    add_family_options(m, hidden=256, embed=256)
    m.add_argument("--src", default="en")
    m.add_argument("--tgt", default="de")
    m.add_argument("--merges", type=int, default=8000)
    m.add_argument("--d-model", type=int, default=256)
    m.add_argument("--heads", type=int, default=8)
    m.add_argument("--d-ff", type=int, default=512)
    m.add_argument("--layers", type=int, default=3)
    m.add_argument("--max-positions", type=int, default=128)
    m.add_argument("--dropout", type=float, default=0.1)
    m.add_argument("--label-smoothing", type=float, default=0.1)
    m.add_argument("--lr", type=float, default=1e-3)
    m.add_argument("--warmup", type=int, default=800)
    m.add_argument("--batch-tokens", type=int, default=2500)
    m.add_argument("--epochs", type=int, default=200)
    m.add_argument("--patience", type=int, default=4)
    add_compute_options(m, threads=2)
    m.add_argument("--resume", action="store_true",
                   help="continue from build/<name>.ckpt.pt, or else from models/training/<name>.state.safetensors")
    m.add_argument("--rewarm", type=int, default=training_state.REWARM,
                   help="after a resume from a committed state (fresh Adam): steps over which the lr ramps up again")
    m.add_argument("--init-from", help="start from the weights of this .safetensors model (same BPE)")
    m.add_argument("--init-embeddings-from", help="start the (shared) embeddings from this model (same BPE)")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--name", help="run name for build/<name>.* (default multi30k-<src>-<tgt>)")
    m.add_argument("--average", type=int, default=10, help="average the last N epochs' weights (candidate .avg)")
    shared_data.add_option(m)
    b = sub.add_parser("mlm", help="a small BERT: masked LM on Multi30k English (build/<name>.*)")
    add_single_model_options(b, name="multi30k-en-mlm", lr=5e-4, warmup=1000, batch_tokens=4000, epochs=100)
    b.add_argument("--min-count", type=int, default=2, help="a word needs this many occurrences to be one piece")
    b.add_argument("--schedule", choices=("inverse_sqrt", "linear"), default="inverse_sqrt",
                   help="after the warm-up: 1/sqrt(step), or BERT's linear decay to 0 at the end of --epochs")
    b.add_argument("--pairs", type=float, default=0.5, help="share of training captions fed as pairs A [SEP] B")
    b.add_argument("--init-from", help="start from the weights of this .safetensors masked LM (same vocabulary)")
    g = sub.add_parser("lm", help="a small GPT: next-piece LM on Multi30k English (build/<name>.*)")
    add_single_model_options(g, name="multi30k-en-gpt", lr=1e-3, warmup=500, batch_tokens=2000, epochs=30)
    g.add_argument("--merges", type=int, default=4000, help="English BPE merges")
    args = ap.parse_args()
    torch.set_num_threads(getattr(args, "threads", 2))
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "models" / "snapshots").mkdir(exist_ok=True)
    {"toy": train_toy, "multi30k": train_multi30k, "mlm": train_mlm, "lm": train_lm}[args.task](args)


if __name__ == "__main__":
    main()
