#pragma once
/// \file
/// Error hierarchy of Tessera. Every user-facing failure (bad files, bad shapes,
/// bad coordinates, index overflow, missing backends, CUDA failures) is reported
/// by throwing one of these; library code never aborts.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera {

/// Base class of every exception Tessera throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file could not be opened, read or written.
class IoError : public Error {
 public:
  using Error::Error;
};

/// The contents of a file are malformed. The message starts with "file:line: ".
class ParseError : public Error {
 public:
  /// Error at `line` of `file`; the message is "file:line: what".
  ParseError(const std::string& file, std::int64_t line, const std::string& what)
      : Error(file + ":" + std::to_string(line) + ": " + what), file_(file), line_(line) {}
  /// The file that failed to parse.
  const std::string& file() const noexcept { return file_; }
  /// The line of the file where parsing failed.
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::int64_t line_;
};

/// Operand shapes do not agree (or a shape is invalid, e.g. negative).
class ShapeError : public Error {
 public:
  using Error::Error;
};

/// A coordinate is out of range, or coordinates violate an ordering contract.
class IndexError : public Error {
 public:
  using Error::Error;
};

/// A size or coordinate does not fit the encoding's index type.
class OverflowError : public Error {
 public:
  using Error::Error;
};

/// Stored data does not satisfy its encoding's contract (e.g. a broken pos array,
/// a block that is not N:M).
class FormatError : public Error {
 public:
  using Error::Error;
};

/// A kernel's output overlaps one of the inputs it reads (e.g. spmv with y and x on the same
/// memory): the result would depend on the order in which threads run.
class AliasError : public Error {
 public:
  using Error::Error;
};

/// The requested backend or algorithm was not compiled into this build.
class NotCompiled : public Error {
 public:
  using Error::Error;
};

/// An allocation failed, on the host or in a Kokkos memory space: the array's label, its
/// size in bytes and the memory space are in the message and in the accessors.
class OutOfMemoryError : public Error {
 public:
  /// Failure to allocate `bytes` bytes for the array `label` in the memory space `space`.
  OutOfMemoryError(const std::string& label, std::size_t bytes, const std::string& space)
      : OutOfMemoryError("out of memory: cannot allocate " + std::to_string(bytes) + " bytes for '" + label + "' in " +
                             space,
                         label, bytes) {}
  /// The same failure with another message (the distributed layer prefixes the failing rank).
  static OutOfMemoryError with_message(const std::string& what, const std::string& label, std::size_t bytes) {
    return OutOfMemoryError(what, label, bytes);
  }
  /// Label of the array that could not be allocated.
  const std::string& label() const noexcept { return label_; }
  /// Size of the failed allocation, in bytes.
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  OutOfMemoryError(const std::string& what, const std::string& label, std::size_t bytes)
      : Error(what), label_(label), bytes_(bytes) {}

  std::string label_;
  std::size_t bytes_;
};

/// A CUDA runtime or library call failed.
class CudaError : public Error {
 public:
  using Error::Error;
};

}  // namespace tessera
