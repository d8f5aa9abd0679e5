#include "model/model_file_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/safetensors.h"
#include "model/model.h"  // Model::load_bytes only: validation by the engine's loader

namespace attnscope::train {
// Python's json.dumps(s, ensure_ascii=False) for a string.
std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

// Python's repr(float): the shortest digits that round-trip, fixed notation for exponents in
// [-4, 16), else d.ddde±XX.
std::string py_float(double x) {
  char buf[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string s = buf;  // d.ddde±XX
  const std::size_t e = s.find('e');
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  const bool negative = digits[0] == '-';
  if (negative) digits.erase(0, 1);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out = "0." + std::string(-exponent - 1, '0') + digits;
    } else {
      if (digits.size() <= static_cast<std::size_t>(exponent) + 1) digits += std::string(exponent + 1 - digits.size(), '0');
      out = digits.substr(0, exponent + 1) + "." + (digits.size() > static_cast<std::size_t>(exponent) + 1
                                                         ? digits.substr(exponent + 1) : "0");
    }
  } else {
    out = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += eb;
  }
  return (negative ? "-" : "") + out;
}

namespace {

std::string vocab_json(const std::vector<std::string>& vocab) {
  std::string out = "[";
  for (std::size_t i = 0; i < vocab.size(); ++i) out += (i ? "," : "") + py_string(vocab[i]);
  return out + "]";
}

}  // namespace

void read_tensors(const SafetensorsFile& file, const TensorList& tensors) {
  for (const NamedTensor& t : tensors) {
    const std::vector<float> values = file.read_f32(t.name);
    *t.tensor = Eigen::Map<const Matrix>(values.data(), t.tensor->rows(), t.tensor->cols());
  }
}

std::string architecture_of(const std::uint8_t* data, std::size_t size) {
  const SafetensorsFile file(data, size);  // throws ModelFileError on a broken file
  const auto& meta = file.metadata();
  if (!meta.count("config")) throw ModelFileError("the model file has no config");
  return ModelConfig::from_json(meta.at("config")).architecture;
}

ModelText trainable_text(const SafetensorsFile& file, const Model& model) {
  const auto& meta = file.metadata();
  for (const char* key : {"tgt_tokenizer", "generation"})  // the writer keeps one tokenizer and no defaults
    if (meta.count(key)) throw InputError(std::string("training does not support a model file with metadata '") + key + "'");
  ModelText text;
  text.tokenizer_json = meta.at("tokenizer");
  text.src_vocab = model.src_vocab.tokens();  // the loader's, already parsed and checked
  text.tgt_vocab = model.tgt_vocab.tokens();
  if (meta.count("name")) text.name = meta.at("name");
  if (meta.count("description")) text.description = meta.at("description");
  return text;
}

std::vector<std::uint8_t> export_tensors(const std::string& config, const TensorList& tensors, const ModelText& text) {
  std::string metadata = "{\"format\":\"attnscope\",\"format_version\":\"1\",\"config\":" +
                         py_string(config) + ",\"tokenizer\":" + py_string(text.tokenizer_json) +
                         ",\"src_vocab\":" + py_string(vocab_json(text.src_vocab)) +
                         ",\"tgt_vocab\":" + py_string(vocab_json(text.tgt_vocab));
  if (!text.name.empty()) metadata += ",\"name\":" + py_string(text.name);
  if (!text.description.empty()) metadata += ",\"description\":" + py_string(text.description);
  metadata += "}";
  std::string header = "{\"__metadata__\":" + metadata;
  std::size_t offset = 0;  // `tensors` are sorted by name, as export.py writes them
  for (const auto& t : tensors) {
    const std::size_t bytes = static_cast<std::size_t>(t.tensor->size()) * 4;
    const std::string shape = t.vector ? "[" + std::to_string(t.tensor->size()) + "]"
                                       : "[" + std::to_string(t.tensor->rows()) + "," + std::to_string(t.tensor->cols()) + "]";
    header += "," + py_string(t.name) + ":{\"dtype\":\"F32\",\"shape\":" + shape + ",\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> out(8 + header.size() + offset);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* data = out.data() + 8 + header.size();
  for (const auto& t : tensors) {  // little-endian float32, row-major (as every target we build for)
    std::memcpy(data, t.tensor->data(), static_cast<std::size_t>(t.tensor->size()) * 4);
    data += t.tensor->size() * 4;
  }
  return out;
}

}  // namespace attnscope::train
