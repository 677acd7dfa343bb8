// cli::WriteOutputFile: a new file, a replaced file keeping its mode, a failed write that leaves
// the earlier file and no temporary file behind, a full device, a FIFO without a reader, a
// directory and a missing folder.
#include "tools/oflite/output_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "oflite_output_file_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string File(const std::string& name) const { return dir_ + "/" + name; }
  // Every entry of the folder: a temporary file left behind shows up here.
  size_t Entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir_),
                                             std::filesystem::directory_iterator()));
  }

 private:
  std::string dir_;
};

std::string Read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

TEST_F(OutputFileTest, WritesThePartsInOrder) {
  ASSERT_TRUE(cli::WriteOutputFile(File("a.bin"), {"head", "", "er", "body"}).ok());
  EXPECT_EQ(Read(File("a.bin")), "headerbody");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputFileTest, ReplacingAFileKeepsItsPermissions) {
  ASSERT_TRUE(cli::WriteOutputFile(File("a.bin"), {"old"}).ok());
  ASSERT_EQ(chmod(File("a.bin").c_str(), 0640), 0);
  ASSERT_TRUE(cli::WriteOutputFile(File("a.bin"), {"new"}).ok());
  EXPECT_EQ(Read(File("a.bin")), "new");
  struct stat info;
  ASSERT_EQ(stat(File("a.bin").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
}

TEST_F(OutputFileTest, ALinkIsFollowedAndStaysALink) {
  ASSERT_TRUE(cli::WriteOutputFile(File("target.bin"), {"old"}).ok());
  std::filesystem::create_symlink(File("target.bin"), File("link.bin"));
  ASSERT_TRUE(cli::WriteOutputFile(File("link.bin"), {"new"}).ok());
  EXPECT_TRUE(std::filesystem::is_symlink(File("link.bin")));
  EXPECT_EQ(Read(File("target.bin")), "new");
}

// A file-size limit makes the write fail part way (EFBIG) as a full disk would.
TEST_F(OutputFileTest, AFailedWriteLeavesTheEarlierFileAndNoTemporaryFile) {
  ASSERT_TRUE(cli::WriteOutputFile(File("out.bin"), {"earlier contents"}).ok());
  struct rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const sighandler_t old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string big(100000, 'x');
  const Maybe<void> written = cli::WriteOutputFile(File("out.bin"), {big});
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  ExpectError(written, ErrorKind::kRuntimeError, {"cannot write " + File("out.bin")});
  EXPECT_EQ(Read(File("out.bin")), "earlier contents");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputFileTest, AFullDeviceIsARuntimeError) {
  if (access("/dev/full", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/full";
  }
  ExpectError(cli::WriteOutputFile("/dev/full", {"data"}), ErrorKind::kRuntimeError,
              {"cannot write /dev/full", "No space left"});
}

TEST_F(OutputFileTest, AFifoWithoutAReaderIsAValueErrorNotAHang) {
  ASSERT_EQ(mkfifo(File("fifo").c_str(), 0600), 0);
  ExpectError(cli::WriteOutputFile(File("fifo"), {"data"}), ErrorKind::kValueError,
              {"cannot open " + File("fifo"), "no reader"});
}

TEST_F(OutputFileTest, AFifoWhoseReaderComesLateIsWritten) {
  ASSERT_EQ(mkfifo(File("fifo").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    got = Read(File("fifo"));
  });
  const Maybe<void> written = cli::WriteOutputFile(File("fifo"), {"da", "ta"});
  reader.join();
  EXPECT_TRUE(written.ok());
  EXPECT_EQ(got, "data");
}

// Renaming needs only the folder's permission; the target's own is what decides. (root may
// write anything, so this is seen only without root.)
TEST_F(OutputFileTest, AReadOnlyTargetIsRefusedAndKept) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "root may write a read-only file";
  }
  ASSERT_TRUE(cli::WriteOutputFile(File("ro.bin"), {"kept"}).ok());
  ASSERT_EQ(chmod(File("ro.bin").c_str(), 0444), 0);
  ExpectError(cli::WriteOutputFile(File("ro.bin"), {"new"}), ErrorKind::kValueError,
              {File("ro.bin"), "Permission denied"});
  EXPECT_EQ(Read(File("ro.bin")), "kept");
}

TEST_F(OutputFileTest, ADirectoryOrAMissingFolderIsAValueError) {
  ExpectError(cli::WriteOutputFile(File(""), {"data"}), ErrorKind::kValueError, {"is a directory"});
  ExpectError(cli::WriteOutputFile(File("missing/out.bin"), {"data"}), ErrorKind::kValueError,
              {File("missing/out.bin"), "No such file"});
  ExpectError(cli::WriteOutputFile("", {"data"}), ErrorKind::kValueError, {"empty"});
}

}  // namespace
}  // namespace oflite
