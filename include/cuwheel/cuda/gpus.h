// cuwheel: NVIDIA GPU products and their compute capabilities, so that a
// user can ask about "RTX 5090" or "Jetson AGX Orin" rather than sm_120 or
// sm_87.
//
// Source: NVIDIA's CUDA GPUs list (developer.nvidia.com/cuda-gpus, the
// "Compute Capability" tables for data-center, workstation, GeForce and
// Jetson products), as summarised in cuda-facts.md section 3.2; GB10 (DGX
// Spark) 12.1 and Jetson Thor 11.0 (10.1 before CUDA 13) from the sources
// cited there. The table names the products a packager is asked about,
// not every SKU; a name that is not in it is refused with the closest
// names, and any GPU can still be given by its compute capability.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel::cuda {

/// The market segment of a product, as the CUDA GPUs list groups them.
enum class Segment : uint8_t { data_center, workstation, geforce, jetson };

/// "data center", "workstation", "GeForce", "Jetson".
std::string_view to_string(Segment s);

/// One product.
struct GpuProduct {
  std::string_view name;  ///< as NVIDIA writes it, without "NVIDIA ": "GeForce RTX 5090", "H100", "Jetson AGX Orin"
  unsigned sm;            ///< compute capability as an SM number (120 for 12.0)
  Segment segment;
};

/// The whole table, by compute capability then name. Every compute
/// capability in it is one cuwheel/cuda/arch.h knows (a unit test checks).
std::span<const GpuProduct> gpu_products();

/// The products of `name`, matched case-insensitively with runs of spaces,
/// '-' and '_' read as one space and a leading "NVIDIA " ignored: first
/// the product whose name (or whose name without its brand word
/// "GeForce", "Tesla", "Quadro" or "Jetson") equals it ("rtx 5090",
/// "GeForce RTX 5090", "nvidia h200"); else the longest such name that
/// the query starts with, followed by a space, as the driver names
/// devices ("NVIDIA H100 80GB HBM3", "A100-SXM4-80GB", "RTX 3060 Ti").
/// Errors: nothing matches; the message lists up to five product names
/// that contain the query's words, and says that a compute capability
/// ("sm_86", "8.6") is accepted too.
Expected<GpuProduct> find_gpu_product(std::string_view name);

/// The other products whose names start with `name` followed by more
/// words, and whose compute capability differs from the product `name`
/// matches (brand words optional, as in find_gpu_product): "RTX 6000"
/// matches the Quadro RTX 6000 (7.5) and is also the start of "RTX 6000
/// Ada" (8.9). Empty when `name` matches nothing. For a note that the name
/// is ambiguous.
std::vector<GpuProduct> gpu_products_extending(std::string_view name);

/// The products with compute capability `sm`, in table order.
std::vector<GpuProduct> gpu_products_with(unsigned sm);

}  // namespace cuwheel::cuda
