#include "train/family_options.h"

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "model/architecture_options.h"

namespace attnscope::train {
namespace {

const ArchitectureOption* option_of(const FamilyRegistration& family, const std::string& name) {
  for (std::size_t i = 0; i < family.training->option_count; ++i)
    if (name == family.training->options[i].name) return &family.training->options[i];
  return nullptr;
}

template <class Matches>
OwnedOption first_option(Matches matches) {
  for (const FamilyRegistration& r : registered_families()) {
    if (!r.training) continue;
    for (std::size_t i = 0; i < r.training->option_count; ++i)
      if (matches(r.training->options[i])) return {&r.training->options[i], &r};
  }
  return {};
}

}  // namespace

const FamilyRegistration* trainable_family(const std::string& name) {
  const FamilyRegistration* r = find_family(name);
  return r && r->training ? r : nullptr;
}

const FamilyRegistration& default_trainable_family() {
  for (const FamilyRegistration& r : registered_families())
    if (r.training) return r;
  throw Error("no model family trains");
}

std::string trainable_family_names(const std::string& mark, const std::string& last, const std::string& between) {
  std::vector<std::string> names;
  for (const FamilyRegistration& r : registered_families())
    if (r.training) names.push_back(mark + r.architecture + mark);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? last : between) + names[i];
  return out;
}

std::vector<RegisteredPreset> training_presets() {
  std::vector<RegisteredPreset> out;
  for (const FamilyRegistration& r : registered_families()) {
    if (!r.training) continue;
    for (std::size_t i = 0; i < r.training->preset_count; ++i) out.push_back({&r, &r.training->presets[i]});
  }
  return out;
}

OwnedOption architecture_option_named(const std::string& name) {
  return first_option([&](const ArchitectureOption& o) { return name == o.name; });
}

OwnedOption architecture_option_of_flag(const std::string& flag) {
  return first_option([&](const ArchitectureOption& o) { return flag == o.flag; });
}

std::string architecture_option_names() {
  std::string out;
  for (const FamilyRegistration& r : registered_families()) {
    if (!r.training) continue;
    for (std::size_t i = 0; i < r.training->option_count; ++i) {
      const char* name = r.training->options[i].name;
      if (architecture_option_named(name).owner == &r) out += (out.empty() ? "" : ", ") + std::string(name);
    }
  }
  return out;
}

std::string misplaced_option(const FamilyRegistration& family, const std::vector<std::string>& given,
                             const std::function<std::string(const ArchitectureOption&)>& shown,
                             const std::function<std::string(const FamilyRegistration&)>& add_family) {
  for (const FamilyRegistration& owner : registered_families()) {
    const ArchitectureOption* last = nullptr;
    for (const std::string& name : given) {
      const OwnedOption o = architecture_option_named(name);
      if (o.owner == &owner && !option_of(family, name)) last = o.option;
    }
    if (!last) continue;
    const std::string whose = shown(*last) + " is " + owner.training->noun + "'s: ";
    if (&owner == &default_trainable_family()) return whose + family.training->one + " has none";
    return whose + add_family(owner);
  }
  return "";
}

void check_architecture_options(const FamilyRegistration& family, const nlohmann::json& architecture) {
  if (architecture.is_null()) return;  // none given
  if (!architecture.is_object()) throw InputError("the architecture options must be a JSON object");
  std::vector<std::string> given;
  for (const auto& [name, value] : architecture.items()) {
    const OwnedOption o = architecture_option_named(name);
    if (!o.option) throw InputError("unknown training option " + quote(name) + " (" + architecture_option_names() + ")");
    check_architecture_option(*o.option, value);
    given.push_back(name);
  }
  const std::string misplaced = misplaced_option(
      family, given, [](const ArchitectureOption& o) { return "training option '" + std::string(o.name) + "'"; },
      [](const FamilyRegistration& owner) { return "add \"family\": \"" + std::string(owner.architecture) + "\""; });
  if (!misplaced.empty()) throw InputError(misplaced);
}

}  // namespace attnscope::train
