// ParseWorldSpec: the world from the launcher's environment variables.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "oneflow_lite/dist/process_group.h"

namespace oflite {
namespace dist {

namespace {

using Getenv = std::function<const char*(const char*)>;

const char* Lookup(const Getenv& getenv, const char* name) {
  const char* value = getenv(name);
  return (value != nullptr && value[0] != '\0') ? value : nullptr;
}

// An integer variable in [min, max]; `fallback` when unset.
Maybe<int> ReadInt(const Getenv& getenv, const char* name, int min, int max, int fallback) {
  const char* text = Lookup(getenv, name);
  if (text == nullptr) {
    return fallback;
  }
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  OFLITE_CHECK_OR_RETURN(errno == 0 && end != text && *end == '\0', ValueError)
      << "dist::Init: " << name << "=\"" << text << "\" is not an integer";
  OFLITE_CHECK_OR_RETURN(value >= min && value <= max, ValueError)
      << "dist::Init: " << name << "=" << value << " is out of range (expected " << min << ".."
      << max << ")";
  return static_cast<int>(value);
}

// The variable names of one launcher: rank, size, local rank, local size.
struct LauncherNames {
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
};
constexpr LauncherNames kTorchrunNames = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"};
constexpr LauncherNames kOpenMpiNames = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                                         "OMPI_COMM_WORLD_LOCAL_RANK",
                                         "OMPI_COMM_WORLD_LOCAL_SIZE"};
constexpr int kMaxWorldSize = 1 << 16;

Maybe<void> ReadRanks(const Getenv& getenv, const LauncherNames& names, WorldSpec* spec) {
  OFLITE_CHECK_OR_RETURN(Lookup(getenv, names.size) != nullptr, ValueError)
      << "dist::Init: " << names.rank << " is set but " << names.size << " is not";
  OFLITE_ASSIGN_OR_RETURN(spec->world_size, ReadInt(getenv, names.size, 1, kMaxWorldSize, 1));
  OFLITE_ASSIGN_OR_RETURN(spec->rank, ReadInt(getenv, names.rank, 0, spec->world_size - 1, 0));
  OFLITE_ASSIGN_OR_RETURN(spec->local_world_size,
                          ReadInt(getenv, names.local_size, 1, spec->world_size, spec->world_size));
  OFLITE_ASSIGN_OR_RETURN(spec->local_rank, ReadInt(getenv, names.local_rank, 0,
                                                    spec->local_world_size - 1, spec->rank));
  spec->source = names.rank;
  return Ok();
}

Maybe<double> ReadTimeout(const Getenv& getenv) {
  const char* text = Lookup(getenv, "OFLITE_DIST_TIMEOUT");
  if (text == nullptr) {
    return kDefaultTimeoutSeconds;
  }
  errno = 0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  OFLITE_CHECK_OR_RETURN(errno == 0 && end != text && *end == '\0' && std::isfinite(seconds) &&
                             seconds > 0 && seconds <= 1e6,
                         ValueError)
      << "dist::Init: OFLITE_DIST_TIMEOUT=\"" << text
      << "\" is not a number of seconds (expected a number in (0, 1e6])";
  return seconds;
}

Maybe<void> ReadRendezvous(const Getenv& getenv, WorldSpec* spec) {
  if (const char* text = Lookup(getenv, "OFLITE_RENDEZVOUS")) {
    const std::string value = text;
    const std::string scheme = "file:";
    OFLITE_CHECK_OR_RETURN(value.rfind(scheme, 0) == 0 && value.size() > scheme.size(), ValueError)
        << "dist::Init: OFLITE_RENDEZVOUS=\"" << value
        << "\" is not a rendezvous (expected file:DIR, a directory every rank sees)";
    spec->rendezvous_dir = value.substr(scheme.size());
    return Ok();
  }
  if (spec->world_size == 1) {
    return Ok();
  }
  if (spec->source == kOpenMpiNames.rank) {
    const char* job = Lookup(getenv, "PMIX_NAMESPACE");
    if (job == nullptr) {
      job = Lookup(getenv, "OMPI_MCA_ess_base_jobid");
    }
    OFLITE_CHECK_OR_RETURN(job != nullptr, ValueError)
        << "dist::Init: launched by mpirun but neither OFLITE_RENDEZVOUS nor a job id "
           "(PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid) is set; set OFLITE_RENDEZVOUS=file:DIR";
    std::string name = job;
    for (char& c : name) {  // a file name: keep letters, digits, '-' and '.'
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '.';
      c = plain ? c : '_';
    }
    const char* tmp = Lookup(getenv, "TMPDIR");
    spec->rendezvous_dir =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/oflite-rendezvous-" + name;
    spec->rendezvous_dir_is_generated = true;
    return Ok();
  }
  if (Lookup(getenv, "MASTER_ADDR") != nullptr) {
    return OFLITE_ERROR(NotImplemented)
           << "dist::Init: MASTER_ADDR/MASTER_PORT rendezvous is not supported (the Gloo oflite "
              "builds on has no TCP store); set OFLITE_RENDEZVOUS=file:DIR on a directory "
              "every rank sees";
  }
  return OFLITE_ERROR(ValueError)
         << "dist::Init: " << spec->source << "=" << spec->rank << " of " << spec->world_size
         << " ranks but OFLITE_RENDEZVOUS is not set (expected file:DIR, a directory every rank "
            "sees; `oflite launch` sets it)";
}

}  // namespace

Maybe<WorldSpec> ParseWorldSpec(const Getenv& getenv) {
  WorldSpec spec;
  if (Lookup(getenv, kTorchrunNames.rank) != nullptr) {
    OFLITE_JUST(ReadRanks(getenv, kTorchrunNames, &spec));
  } else if (Lookup(getenv, kOpenMpiNames.rank) != nullptr) {
    OFLITE_JUST(ReadRanks(getenv, kOpenMpiNames, &spec));
  } else {
    OFLITE_CHECK_OR_RETURN(Lookup(getenv, kTorchrunNames.size) == nullptr, ValueError)
        << "dist::Init: WORLD_SIZE=" << Lookup(getenv, kTorchrunNames.size)
        << " is set but RANK is not";
  }
  OFLITE_ASSIGN_OR_RETURN(spec.timeout_seconds, ReadTimeout(getenv));
  OFLITE_JUST(ReadRendezvous(getenv, &spec));
  return spec;
}

}  // namespace dist
}  // namespace oflite
