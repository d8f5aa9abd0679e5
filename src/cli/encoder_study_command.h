#pragma once
// attnscope-cli bert-study: the head study of an encoder-only model (src/analysis/encoder_study.h).
namespace attnscope::cli {
// argv[1] == "bert-study". Returns the exit status (0 ok, 2 bad usage, unreadable model or
// unreadable text/sentences).
int encoder_study_main(int argc, char** argv);
extern const char* kEncoderStudyUsage;
}  // namespace attnscope::cli
