// The product table. See include/cuwheel/cuda/gpus.h for the source.
#include "cuwheel/cuda/gpus.h"

#include <algorithm>
#include <cctype>

namespace cuwheel::cuda {

namespace {

using S = Segment;

// developer.nvidia.com/cuda-gpus (cuda-facts.md 3.2): compute capability
// per product. Sorted by compute capability, then as the list orders them.
constexpr GpuProduct kProducts[] = {
    // Maxwell
    {"GeForce GTX 750 Ti", 50, S::geforce},
    {"Quadro K2200", 50, S::workstation},
    {"GeForce GTX 970", 52, S::geforce},
    {"GeForce GTX 980", 52, S::geforce},
    {"GeForce GTX 980 Ti", 52, S::geforce},
    {"GeForce GTX TITAN X", 52, S::geforce},
    {"Quadro M6000", 52, S::workstation},
    {"Tesla M4", 52, S::data_center},
    {"Tesla M40", 52, S::data_center},
    {"Tesla M60", 52, S::data_center},
    {"Jetson Nano", 53, S::jetson},
    {"Jetson TX1", 53, S::jetson},
    // Pascal
    {"Tesla P100", 60, S::data_center},
    {"Quadro GP100", 60, S::workstation},
    {"GeForce GTX 1050", 61, S::geforce},
    {"GeForce GTX 1050 Ti", 61, S::geforce},
    {"GeForce GTX 1060", 61, S::geforce},
    {"GeForce GTX 1070", 61, S::geforce},
    {"GeForce GTX 1080", 61, S::geforce},
    {"GeForce GTX 1080 Ti", 61, S::geforce},
    {"TITAN Xp", 61, S::geforce},
    {"Quadro P4000", 61, S::workstation},
    {"Quadro P6000", 61, S::workstation},
    {"Tesla P4", 61, S::data_center},
    {"Tesla P40", 61, S::data_center},
    {"Jetson TX2", 62, S::jetson},
    // Volta
    {"Tesla V100", 70, S::data_center},
    {"Quadro GV100", 70, S::workstation},
    {"TITAN V", 70, S::geforce},
    {"Jetson AGX Xavier", 72, S::jetson},
    {"Jetson Xavier NX", 72, S::jetson},
    // Turing
    {"Tesla T4", 75, S::data_center},
    {"Quadro RTX 4000", 75, S::workstation},
    {"Quadro RTX 5000", 75, S::workstation},
    {"Quadro RTX 6000", 75, S::workstation},
    {"Quadro RTX 8000", 75, S::workstation},
    {"T1000", 75, S::workstation},
    {"GeForce GTX 1650", 75, S::geforce},
    {"GeForce GTX 1660", 75, S::geforce},
    {"GeForce GTX 1660 Ti", 75, S::geforce},
    {"GeForce RTX 2060", 75, S::geforce},
    {"GeForce RTX 2070", 75, S::geforce},
    {"GeForce RTX 2080", 75, S::geforce},
    {"GeForce RTX 2080 Ti", 75, S::geforce},
    {"TITAN RTX", 75, S::geforce},
    // Ampere
    {"A100", 80, S::data_center},
    {"A30", 80, S::data_center},
    {"A800", 80, S::data_center},
    {"A2", 86, S::data_center},
    {"A10", 86, S::data_center},
    {"A16", 86, S::data_center},
    {"A40", 86, S::data_center},
    {"RTX A2000", 86, S::workstation},
    {"RTX A4000", 86, S::workstation},
    {"RTX A5000", 86, S::workstation},
    {"RTX A6000", 86, S::workstation},
    {"GeForce RTX 3050", 86, S::geforce},
    {"GeForce RTX 3060", 86, S::geforce},
    {"GeForce RTX 3070", 86, S::geforce},
    {"GeForce RTX 3080", 86, S::geforce},
    {"GeForce RTX 3090", 86, S::geforce},
    {"Jetson AGX Orin", 87, S::jetson},
    {"Jetson Orin NX", 87, S::jetson},
    {"Jetson Orin Nano", 87, S::jetson},
    // Ada Lovelace
    {"L4", 89, S::data_center},
    {"L20", 89, S::data_center},
    {"L40", 89, S::data_center},
    {"L40S", 89, S::data_center},
    {"RTX 2000 Ada", 89, S::workstation},
    {"RTX 4000 Ada", 89, S::workstation},
    {"RTX 4000 SFF Ada", 89, S::workstation},
    {"RTX 4500 Ada", 89, S::workstation},
    {"RTX 5000 Ada", 89, S::workstation},
    {"RTX 6000 Ada", 89, S::workstation},
    {"GeForce RTX 4060", 89, S::geforce},
    {"GeForce RTX 4070", 89, S::geforce},
    {"GeForce RTX 4080", 89, S::geforce},
    {"GeForce RTX 4090", 89, S::geforce},
    // Hopper
    {"H100", 90, S::data_center},
    {"H200", 90, S::data_center},
    {"H800", 90, S::data_center},
    {"H20", 90, S::data_center},
    {"GH200", 90, S::data_center},
    // Blackwell
    {"B100", 100, S::data_center},
    {"B200", 100, S::data_center},
    {"GB200", 100, S::data_center},
    {"B300", 103, S::data_center},
    {"GB300", 103, S::data_center},
    {"Jetson AGX Thor", 110, S::jetson},
    {"Jetson T5000", 110, S::jetson},
    {"RTX PRO 6000 Blackwell Server Edition", 120, S::data_center},
    {"RTX PRO 4000 Blackwell", 120, S::workstation},
    {"RTX PRO 4500 Blackwell", 120, S::workstation},
    {"RTX PRO 5000 Blackwell", 120, S::workstation},
    {"RTX PRO 6000 Blackwell", 120, S::workstation},
    {"GeForce RTX 5060", 120, S::geforce},
    {"GeForce RTX 5070", 120, S::geforce},
    {"GeForce RTX 5070 Ti", 120, S::geforce},
    {"GeForce RTX 5080", 120, S::geforce},
    {"GeForce RTX 5090", 120, S::geforce},
    {"GB10", 121, S::workstation},
    {"DGX Spark", 121, S::workstation},
};

// Lower case; runs of spaces, '-' and '_' become one space; trimmed.
std::string normalize(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string strip_prefix(std::string s, std::string_view word) {
  if (s.size() > word.size() && s.compare(0, word.size(), word) == 0 && s[word.size()] == ' ')
    return s.substr(word.size() + 1);
  return s;
}

// The names a product answers to: its own, and without its brand word.
std::vector<std::string> spellings(const GpuProduct& p) {
  std::string n = normalize(p.name);
  std::vector<std::string> out{n};
  for (std::string_view brand : {"geforce", "tesla", "quadro", "jetson"}) {
    std::string s = strip_prefix(n, brand);
    if (s != n) out.push_back(s);
  }
  return out;
}

}  // namespace

std::string_view to_string(Segment s) {
  switch (s) {
    case Segment::data_center: return "data center";
    case Segment::workstation: return "workstation";
    case Segment::geforce: return "GeForce";
    case Segment::jetson: return "Jetson";
  }
  return "";
}

std::span<const GpuProduct> gpu_products() { return kProducts; }

std::vector<GpuProduct> gpu_products_with(unsigned sm) {
  std::vector<GpuProduct> out;
  for (const auto& p : kProducts)
    if (p.sm == sm) out.push_back(p);
  return out;
}

Expected<GpuProduct> find_gpu_product(std::string_view name) {
  std::string q = strip_prefix(normalize(name), "nvidia");
  if (q.empty()) return Error{"empty GPU name"};
  for (const auto& p : kProducts)
    for (const auto& s : spellings(p))
      if (s == q) return p;
  // The driver's device names carry the memory and form factor after the
  // product: "h100 80gb hbm3", "a100 sxm4 80gb", "rtx 6000 ada generation".
  // Only such words may follow: "rtx 4000 sff ada generation" is not a
  // Quadro RTX 4000, nor "jetson nano orin" a Jetson Nano.
  auto descriptive = [](std::string_view rest) {
    static const char* const kWords[] = {"pcie", "sxm", "sxm2", "sxm4", "sxm5", "nvl", "hbm2", "hbm2e", "hbm3",
                                         "hbm3e", "generation", "gpu", "laptop", "mobile", "max", "q", "oem",
                                         "tensor", "core", "dgxs", "mig", "smx", "pci", "e", "hgx", "nvlink",
                                         "ti", "super"};  // a Ti or SUPER of a generation has its compute capability
    for (size_t i = 0; i < rest.size();) {
      size_t j = rest.find(' ', i);
      if (j == std::string_view::npos) j = rest.size();
      std::string_view w = rest.substr(i, j - i);
      i = j + 1;
      if (w.empty()) continue;
      // "80gb", "141gb", "96gb", "nvl72", "nvl2", "sxm5"
      size_t k = 0;
      while (k < w.size() && std::isdigit(static_cast<unsigned char>(w[k]))) ++k;
      if (k > 0 && (w.substr(k) == "gb" || w.substr(k).empty())) continue;
      std::string_view stem = w;
      while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back()))) stem.remove_suffix(1);
      if (std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords) ||
          std::find(std::begin(kWords), std::end(kWords), stem) != std::end(kWords))
        continue;
      return false;
    }
    return true;
  };
  const GpuProduct* best = nullptr;
  size_t best_len = 0;
  for (const auto& p : kProducts)
    for (const auto& s : spellings(p))
      if (q.size() > s.size() && q.compare(0, s.size(), s) == 0 && q[s.size()] == ' ' && s.size() > best_len &&
          descriptive(std::string_view(q).substr(s.size() + 1))) {
        best = &p;
        best_len = s.size();
      }
  if (best) return *best;
  // Suggestions: products whose name holds every word of the query.
  std::vector<std::string> words;
  for (size_t i = 0; i < q.size();) {
    size_t j = q.find(' ', i);
    if (j == std::string::npos) j = q.size();
    words.push_back(q.substr(i, j - i));
    i = j + 1;
  }
  std::string near;
  int shown = 0;
  for (const auto& p : kProducts) {
    std::string n = normalize(p.name);
    bool all = std::all_of(words.begin(), words.end(), [&](const std::string& w) { return n.find(w) != std::string::npos; });
    if (all && shown < 5) {
      near += (near.empty() ? "" : ", ") + std::string(p.name);
      ++shown;
    }
  }
  std::string msg = "no GPU named '" + std::string(name) + "' in cuwheel's product table";
  if (!near.empty()) msg += "; did you mean: " + near;
  msg += " (a compute capability is accepted too: sm_86 or 8.6)";
  return Error{msg};
}

std::vector<GpuProduct> gpu_products_extending(std::string_view name) {
  std::vector<GpuProduct> out;
  auto exact = find_gpu_product(name);
  if (!exact) return out;
  const std::string q = strip_prefix(normalize(name), "nvidia");
  for (const auto& p : kProducts) {
    if (p.sm == exact->sm || p.name == exact->name) continue;
    for (const auto& s : spellings(p))
      if (s.size() > q.size() && s.compare(0, q.size(), q) == 0 && s[q.size()] == ' ') {
        out.push_back(p);
        break;
      }
  }
  return out;
}

}  // namespace cuwheel::cuda
