import CArchive

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a reproducible archive through libarchive, streaming to a file descriptor.
///
/// Determinism is the caller's ordering plus what this type fixes: regular files only, mode
/// 0644, uid/gid 0 without user or group names, one given mtime, no atime/ctime/birthtime, no
/// gzip timestamp, and a padded last block so a pipe and a file receive the same bytes.
/// Owns a libarchive handle: confined to one task, freed in `deinit`.
final class ArchiveWriter {
  private let archive: OpaquePointer
  private let entry: OpaquePointer
  private var finished = false

  /// Opens an archive of `format` writing to `fd` (which the caller owns and closes).
  init(format: ArchiveFormat, level: Int?, fd: Int32) throws(ArchiveError) {
    guard let archive = archive_write_new(), let entry = archive_entry_new() else {
      throw ArchiveError(.io, "libarchive could not allocate a writer")
    }
    self.archive = archive
    self.entry = entry
    var status: Int32
    switch format {
    case .zip: status = archive_write_set_format_zip(archive)
    default: status = archive_write_set_format_pax_restricted(archive)
    }
    try check(status, "select the \(format.rawValue) format")
    var options: [String] = []
    switch format {
    case .tar, .zip: status = archive_write_add_filter_none(archive)
    case .tarGzip:
      status = archive_write_add_filter_gzip(archive)
      options.append("gzip:!timestamp")
      if let level { options.append("gzip:compression-level=\(level)") }
    case .tarZstd:
      status = archive_write_add_filter_zstd(archive)
      if let level { options.append("zstd:compression-level=\(level)") }
    case .tarXz:
      status = archive_write_add_filter_xz(archive)
      if let level { options.append("xz:compression-level=\(level)") }
    }
    try check(status, "add the \(format.rawValue) compression")
    if format == .zip, let level { options.append("zip:compression-level=\(level)") }
    if !options.isEmpty {
      try check(
        archive_write_set_options(archive, options.joined(separator: ",")), "set \(options)")
    }
    try check(archive_write_set_bytes_in_last_block(archive, 1), "set block padding")
    try check(archive_write_open_fd(archive, fd), "open the output")
  }

  deinit {
    if !finished { archive_write_fail(archive) }
    archive_entry_free(entry)
    archive_write_free(archive)
  }

  /// Adds one regular file.
  func add(path: String, bytes: [UInt8], modificationTime: Int) throws(ArchiveError) {
    archive_entry_clear(entry)
    archive_entry_set_pathname(entry, path)
    archive_entry_set_filetype(entry, 0o100000)  // AE_IFREG (S_IFREG)
    archive_entry_set_perm(entry, 0o644)
    archive_entry_set_size(entry, Int64(bytes.count))
    archive_entry_set_uid(entry, 0)
    archive_entry_set_gid(entry, 0)
    archive_entry_set_mtime(entry, time_t(modificationTime), 0)
    try check(archive_write_header(archive, entry), "write the header of \(path)")
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        archive_write_data(archive, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
      }
      guard written > 0 else { throw failure("write \(path)") }
      offset += written
    }
    try check(archive_write_finish_entry(archive), "finish \(path)")
  }

  /// Writes the end of the archive and flushes the compressor.
  func finish() throws(ArchiveError) {
    try check(archive_write_close(archive), "finish the archive")
    finished = true
  }

  private func check(_ status: Int32, _ action: String) throws(ArchiveError) {
    guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw failure(action) }
  }

  private func failure(_ action: String) -> ArchiveError {
    let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
    let code = archive_errno(archive)
    var advice = ""
    if code == ENOSPC || code == EDQUOT { advice = "; free some space and export again" }
    return ArchiveError(.io, "cannot \(action): \(detail)\(advice)")
  }
}
