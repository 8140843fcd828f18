// The `show` report (cuwheel/render/show.h) from a model's facts.
#include <gtest/gtest.h>

#include <string>

#include "cuwheel/render/show.h"

using namespace cuwheel;
using namespace cuwheel::render;

namespace {

// One raw object with device code only, as show reports it.
nlohmann::ordered_json input_with(const DeviceSummary& s) {
  ShowObject o;
  o.display = "lib.so";
  o.device = s;
  nlohmann::ordered_json in;
  in["path"] = "lib.so";
  in["kind"] = "file";
  in["objects"] = nlohmann::ordered_json::array({show_object_json(o, {})});
  in["errors"] = nlohmann::ordered_json::array();
  return in;
}

}  // namespace

TEST(RenderShow, DataSectionContainersNameTheirSection) {
  DeviceSummary s;
  s.entries = 2;
  s.sass = {"sm_90"};
  s.compression = {"none"};
  s.data_sections = {{".ldata", 2}};
  std::string text = render_show_text(input_with(s));
  EXPECT_NE(text.find("  loaded itself 2 containers in .ldata (counted above"), std::string::npos) << text;
}

// A section whose name does not read (e_shstrndx points at no string
// table) has an empty name: the line says so instead of "in  (".
TEST(RenderShow, UnnamedDataSectionIsSaidToBeUnnamed) {
  DeviceSummary s;
  s.entries = 1;
  s.sass = {"sm_90"};
  s.compression = {"none"};
  s.data_sections = {{"", 1}};
  std::string text = render_show_text(input_with(s));
  EXPECT_NE(text.find("  loaded itself 1 container in a section without a readable name (counted above"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(" in  ("), std::string::npos) << text;
}
