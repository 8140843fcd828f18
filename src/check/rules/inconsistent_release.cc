// inconsistent-release: the wheels of one run checked as a release set.
//   1. Wheels of the same distribution and version (one per platform or
//      Python) must declare the same dependencies: Requires-Dist compared
//      after normalization (PEP 503 names, PEP 685 extras, PEP 440
//      specifiers, canonical markers). An installer resolves with the
//      metadata of whichever wheel it picks, so a platform whose wheel
//      forgot a dependency installs without it.
//   2. A plugin (a wheel whose Requires-Dist pins another distribution of
//      the run exactly, `core==V`) must match the core in the run: V must
//      be a version of the core present in the run, and the plugin's own
//      version must equal it (plugins released in lockstep; field report 23).
//   3. A requirement asking for extras of a distribution whose wheel is in
//      the run must ask for extras that wheel provides (Provides-Extra, or
//      an extra its Requires-Dist markers mention); field report 24
//      (jax-ml/jax#27874).
#include <algorithm>
#include <map>
#include <set>

#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

namespace {

// A requirement in a form where equal meaning gives equal text.
std::string canonical(const Requirement& r) {
  std::string s = r.normalized_name();
  std::vector<std::string> extras;
  for (const auto& e : r.extras) extras.push_back(normalize_name(e));
  std::sort(extras.begin(), extras.end());
  extras.erase(std::unique(extras.begin(), extras.end()), extras.end());
  if (!extras.empty()) {
    s += "[";
    for (size_t i = 0; i < extras.size(); ++i) s += (i ? "," : "") + extras[i];
    s += "]";
  }
  if (r.url) {
    s += " @ " + *r.url;
  } else {
    std::vector<std::string> clauses;
    for (const auto& c : r.specifier.specifiers) clauses.push_back(c.to_string());
    std::sort(clauses.begin(), clauses.end());
    for (size_t i = 0; i < clauses.size(); ++i) s += (i ? "," : "") + clauses[i];
  }
  if (r.marker) s += "; " + r.marker->to_string();
  return s;
}

std::set<std::string> requirement_set(const CoreMetadata& md) {
  std::set<std::string> out;
  for (const auto& t : md.requires_dist) {
    auto r = Requirement::parse(t);
    out.insert(r ? canonical(*r) : t);  // unparsable text compares as written (metadata-invalid reports it)
  }
  return out;
}

std::string join(const std::vector<std::string>& v, size_t max = 5) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < max; ++i) s += (i ? "; " : "") + ("`" + printable(v[i]) + "`");
  if (v.size() > max) s += " and " + std::to_string(v.size() - max) + " more";
  return s;
}

// Extras a wheel provides: Provides-Extra, and any extra its markers name
// (metadata before 2.1 need not list them).
std::set<std::string> provided_extras(const CoreMetadata& md) {
  std::set<std::string> out;
  for (const auto& e : md.provides_extra) out.insert(normalize_name(e));
  for (const auto& pr : parsed_requirements(md))
    for (const auto& e : pr.req.behind_extras()) out.insert(e);
  return out;
}

}  // namespace

void inconsistent_release(const Context& ctx, Emitter& out) {
  // The wheels of the run with readable metadata, by normalized name.
  std::map<std::string, std::vector<const CheckModel*>> by_name;
  for (const auto& m : ctx.all)
    if (m.kind == CheckModel::Kind::wheel && m.metadata) by_name[normalize_name(m.metadata->name)].push_back(&m);

  // 1. Same distribution and version, different Requires-Dist.
  for (const auto& [name, wheels] : by_name) {
    std::map<std::string, std::vector<const CheckModel*>> by_version;
    for (const CheckModel* w : wheels) by_version[normalized_version(w->metadata->version)].push_back(w);
    for (const auto& [version, group] : by_version) {
      if (group.size() < 2) continue;
      // The reference is the set most wheels declare (the first wheel's on
      // a tie); each wheel that differs from it is reported.
      std::vector<std::set<std::string>> sets;
      for (const CheckModel* w : group) sets.push_back(requirement_set(*w->metadata));
      size_t ref_i = 0, best = 0;
      for (size_t i = 0; i < sets.size(); ++i) {
        size_t n = static_cast<size_t>(std::count(sets.begin(), sets.end(), sets[i]));
        if (n > best) best = n, ref_i = i;
      }
      const CheckModel* ref = group[ref_i];
      const auto& ref_set = sets[ref_i];
      for (size_t i = 0; i < group.size(); ++i) {
        const CheckModel* w = group[i];
        const auto& set = sets[i];
        if (set == ref_set) continue;
        std::vector<std::string> extra, missing;
        std::set_difference(set.begin(), set.end(), ref_set.begin(), ref_set.end(), std::back_inserter(extra));
        std::set_difference(ref_set.begin(), ref_set.end(), set.begin(), set.end(), std::back_inserter(missing));
        std::string msg = "Requires-Dist differs from " + printable(ref->filename) + " of the same version:";
        if (!extra.empty()) msg += " only here: " + join(extra) + ".";
        if (!missing.empty()) msg += " only there: " + join(missing) + ".";
        out.emit_on(*w, w->dist_info + "/METADATA", "Requires-Dist", msg,
                    "declare the same dependencies in every wheel of a release; express platform differences with "
                    "environment markers (`; sys_platform == \"linux\"`)");
      }
    }
  }

  for (const auto& [name, wheels] : by_name) {
    for (const CheckModel* w : wheels) {
      const CoreMetadata& md = *w->metadata;
      const std::string metadata_name = w->dist_info + "/METADATA";
      for (const auto& pr : parsed_requirements(md)) {
        const std::string dep = pr.req.normalized_name();
        if (dep == name) continue;  // self-references (`pkg[extra]`) are the extras check below
        auto core_it = by_name.find(dep);
        if (core_it == by_name.end()) continue;
        const auto& cores = core_it->second;
        std::set<std::string> core_versions;
        for (const CheckModel* c : cores) core_versions.insert(normalized_version(c->metadata->version));
        std::vector<std::string> cv(core_versions.begin(), core_versions.end());
        std::string cv_text;
        for (const auto& v : cv) cv_text += (cv_text.empty() ? "" : ", ") + v;
        const std::string where = metadata_location(md, "Requires-Dist", pr.text);

        // 2. Exact pins within the run.
        if (const Specifier* pin = exact_pin(pr.req)) {
          std::string pinned = pin->op == Specifier::Op::kArbitrary ? pin->text : pin->version.to_string();
          bool pin_in_run = false;
          for (const auto& v : cv) pin_in_run = pin_in_run || same_version(v, pinned);
          if (!pin_in_run) {
            out.emit_on(*w, metadata_name, where,
                        printable(md.name) + " " + printable(md.version) + " pins " + printable(pr.req.name) + "==" +
                            printable(pinned) + ", but this release set has " +
                            printable(pr.req.name) + " " + cv_text,
                        "build and release the wheels of one version together, each pinning the others' version");
          } else if (!same_version(md.version, pinned, true)) {
            out.emit_on(*w, metadata_name, where,
                        printable(md.name) + " " + printable(md.version) + " pins " + printable(pr.req.name) + "==" +
                            printable(pinned) + ": a plugin's version differs from its core's",
                        "release the plugin with the same version as its core");
          }
        }

        // 3. Requested extras the dependency does not provide.
        if (pr.req.extras.empty()) continue;
        std::set<std::string> provided;
        bool any_match = false;
        for (const CheckModel* c : cores) {
          auto cver = Version::parse(c->metadata->version);
          if (pr.req.url || (cver && pr.req.specifier.contains(*cver, true))) {
            any_match = true;
            for (const auto& e : provided_extras(*c->metadata)) provided.insert(e);
          }
        }
        if (!any_match)  // no wheel in the run satisfies the range; judge by all of them
          for (const CheckModel* c : cores)
            for (const auto& e : provided_extras(*c->metadata)) provided.insert(e);
        for (const auto& e : pr.req.extras) {
          if (provided.count(normalize_name(e))) continue;
          std::string have;
          for (const auto& p : provided) have += (have.empty() ? "" : ", ") + p;
          out.emit_on(*w, metadata_name, where,
                      "requests extra " + printable(e) + " of " + printable(pr.req.name) +
                          ", which its wheel in this release set does not provide (Provides-Extra: " +
                          (have.empty() ? std::string("none") : printable(have)) + ")",
                      "request an extra the dependency declares, or add it to the dependency's "
                      "[project.optional-dependencies]");
        }
      }
    }
  }
}

}  // namespace cuwheel::check::rule_impl
