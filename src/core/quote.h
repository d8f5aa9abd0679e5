#pragma once
// Untrusted text (a model file's strings, a user's sentence or options) inside an error message
// or on a terminal: control characters would corrupt the message (a NUL ends it early in C
// strings and in some JS consumers) or drive the terminal (ESC sequences), and a megabyte-long
// value would bury the message. Every message that quotes such text goes through quote() or
// excerpt(); the CLI prints a model's text through printable().
#include <cstddef>
#include <string>
#include <string_view>

namespace attnscope {

// At most this many bytes of a quoted value appear in a message: enough to recognise a token, a
// tensor name or an option (they are short), little enough that a hostile value cannot bury the
// message it appears in.
inline constexpr std::size_t kMaxQuotedBytes = 80;

// `text` with every character that is not safe to show escaped: C0 controls, DEL and C1 controls
// (U+0080..U+009F, which some terminals obey) as \u00XX, bytes that are not UTF-8 as \xXX.
// Everything else, any printable Unicode included, is kept as it is.
std::string printable(std::string_view text);

// printable() of at most the first `max_bytes` bytes (cut at a character boundary), with "..."
// when something was left out.
std::string excerpt(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

// excerpt() between single quotes: the form messages use for a name or a value, e.g. 'F32\u0000'.
std::string quote(std::string_view text);

}  // namespace attnscope
