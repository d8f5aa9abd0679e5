#pragma once
// attnscope-cli fill-mask: the top pieces for every [MASK] of a text, from an encoder-only model.
namespace attnscope::cli {
// argv[1] == "fill-mask". Returns the exit status (0 ok, 2 bad usage or unreadable model, 3 some
// text could not be read: no [MASK], too long, ...).
int fill_mask_main(int argc, char** argv);
extern const char* kFillMaskUsage;
}  // namespace attnscope::cli
