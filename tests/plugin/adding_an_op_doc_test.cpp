// docs/ADDING_AN_OP.md quotes the example of tools/examples/custom_op, which CI builds against
// the installed package and runs (tools/consumer_test.sh). A code block right under a line
// `<!-- file: PATH -->` must appear verbatim in PATH (from the repository root), and every file
// of the example must be quoted, so the guide cannot drift from code that runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kSourceDir = OFLITE_SOURCE_DIR;
const std::string kExampleDir = "tools/examples/custom_op";

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct QuotedBlock {
  std::string path;  // from the repository root
  std::string code;  // every line of the block, each ending in '\n'
};

std::vector<QuotedBlock> QuotedBlocks(const std::string& markdown) {
  const std::string marker = "<!-- file: ";
  std::vector<QuotedBlock> blocks;
  std::istringstream lines(markdown);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(marker, 0) != 0) {
      continue;
    }
    QuotedBlock block{line.substr(marker.size(), line.size() - marker.size() - 4), ""};
    EXPECT_TRUE(std::getline(lines, line) && line.rfind("```", 0) == 0)
        << "no code block right under the marker of " << block.path;
    while (std::getline(lines, line) && line != "```") {
      block.code += line + "\n";
    }
    blocks.push_back(block);
  }
  return blocks;
}

TEST(AddingAnOpDocTest, EveryQuotedBlockIsTheExamplesCode) {
  const std::vector<QuotedBlock> blocks =
      QuotedBlocks(ReadText(kSourceDir + "/docs/ADDING_AN_OP.md"));
  ASSERT_FALSE(blocks.empty()) << "docs/ADDING_AN_OP.md quotes no file";
  for (const QuotedBlock& block : blocks) {
    const std::string file = ReadText(kSourceDir + "/" + block.path);
    ASSERT_FALSE(file.empty()) << block.path << " is missing or empty";
    EXPECT_NE(file.find(block.code), std::string::npos)
        << "docs/ADDING_AN_OP.md quotes " << block.path << " with code that is not in it:\n"
        << block.code;
  }
}

TEST(AddingAnOpDocTest, EveryFileOfTheExampleIsQuoted) {
  std::set<std::string> quoted;
  for (const QuotedBlock& block : QuotedBlocks(ReadText(kSourceDir + "/docs/ADDING_AN_OP.md"))) {
    quoted.insert(block.path);
  }
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir + "/" + kExampleDir)) {
    const std::string path = kExampleDir + "/" + entry.path().filename().string();
    EXPECT_EQ(quoted.count(path), 1u) << "docs/ADDING_AN_OP.md does not quote " << path;
  }
}

}  // namespace
