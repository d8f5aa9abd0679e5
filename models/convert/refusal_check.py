"""The converter checks' one rule for a refusal (check_hf_marian.py, check_hf_bert.py,
check_bert_converter.py): converting `folder` must raise a ValueError whose message names every
one of `words` (the file and the field); anything else is recorded in `failures`."""

import os


def expect_refusal(convert, folder, tag, words, failures, tmp=None):
    try:
        convert(folder, os.path.join(os.path.dirname(folder), os.path.basename(folder) + ".refused.safetensors"))
    except ValueError as e:
        message = str(e).replace(tmp, "<tmp>") if tmp else str(e)
        ok = all(w in str(e) for w in words)
        print(f"  refuses {tag}: {message} {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"refusal '{tag}' does not name {words}")
        return
    print(f"  refuses {tag}: converted anyway FAIL")
    failures.append(f"refusal '{tag}'")
